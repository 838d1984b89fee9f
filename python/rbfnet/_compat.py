"""What differs between the scikit-learn versions the estimators support."""
try:
    from sklearn.utils.validation import validate_data
except ImportError:  # scikit-learn < 1.6: the same check was an estimator method

    def validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)

# The keyword of check_array's finiteness rule: ensure_all_finite from scikit-learn 1.6 on.
try:
    import inspect

    from sklearn.utils import check_array

    FINITE_KEYWORD = ("ensure_all_finite" if "ensure_all_finite" in inspect.signature(check_array).parameters
                      else "force_all_finite")
except (ImportError, ValueError):  # pragma: no cover
    FINITE_KEYWORD = "force_all_finite"
