# End-to-end tests of the rbfnet binary.
