"""What differs between the scikit-learn versions the estimators support."""
try:
    from sklearn.utils.validation import validate_data
except ImportError:  # scikit-learn < 1.6: the same check was an estimator method

    def validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)
