"""get_params / set_params / repr for GaussianMixture when scikit-learn is not installed (a small
equivalent of sklearn.base.BaseEstimator: the parameters are the __init__ arguments), and
available_if (as scikit-learn's): a method that exists only for some parameter values."""

import functools
import inspect


class UnavailableMethodError(AttributeError, ValueError):
    """A method this estimator has only for other parameter values (hasattr is False)."""


class available_if:
    """Decorator: the method exists only where check(self) is true; elsewhere reading it raises
    UnavailableMethodError with message.format(getattr(self, param)), so hasattr() is False and
    scikit-learn's estimator checks do not take the estimator for a transformer."""

    def __init__(self, check, message, param):
        self.check, self.message, self.param = check, message, param

    def __call__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)
        return self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if not self.check(obj):
            raise UnavailableMethodError(self.message.format(getattr(obj, self.param)))
        return self.fn.__get__(obj, owner)


class ParamsBase:
    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self!r}. Valid "
                                 f"parameters are: {valid!r}.")
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = {p.name: p.default
                    for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                   if not (v is defaults.get(k) or (isinstance(v, (int, float, str))
                                                    and v == defaults.get(k)))]
        return f"{type(self).__name__}({', '.join(changed)})"
