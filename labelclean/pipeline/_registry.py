"""The registry of stage kinds: which ``kind = "..."`` a pipeline file may use.

A stage kind is registered with a decorator on the class (or factory
function) that builds the stage::

    @register_stage_kind("splboost", estimator=SPLBoostClassifier, role="suspects")
    class SPLBoostStage(BaseStage): ...

Pipeline definitions can only name registered kinds: nothing is imported or
evaluated from a definition, so a definition cannot run code. When a kind is
registered with its ``estimator`` class, the parameter names a definition may
give are exactly that estimator's ``get_params()`` keys (plus any
``extra_params`` the stage itself takes), and parameter values are checked
against the estimator's ``_parameter_constraints`` before anything runs, so
the estimator stays the single source of truth for its parameters.

:data:`STAGE_KINDS` is the registry the library fills (stage modules register
their kinds when ``labelclean.pipeline`` is imported); tests and
applications may build their own :class:`StageRegistry`.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from labelclean.exceptions import PipelineDefinitionError
from labelclean.utils._suggest import did_you_mean

__all__ = ["STAGE_KINDS", "StageKind", "StageRegistry", "register_stage_kind"]

_KIND_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
T = TypeVar("T")


@dataclass(frozen=True)
class StageKind:
    """One registered stage kind.

    Attributes
    ----------
    name : str
        The ``kind`` used in pipeline definitions.
    factory : callable
        The decorated stage class or factory function.
    estimator : type or None
        Estimator class whose parameters the stage accepts.
    extra_params : frozenset of str
        Parameters the stage takes beyond the estimator's.
    path_params : frozenset of str
        Parameters whose values are file names inside the output folder;
        they are checked so that they cannot leave it.
    role : str or None
        Free-form role (e.g. ``'confidence'``, ``'suspects'``,
        ``'final_model'``) for the pipeline to order or check stages.
    description : str
        One line shown in listings.
    validator : callable or None
        ``validator(params)`` raising ``ValueError``/``TypeError`` for bad
        values, for checks the estimator's constraints do not cover.
    """

    name: str
    factory: Any
    estimator: type | None = None
    extra_params: frozenset[str] = frozenset()
    path_params: frozenset[str] = frozenset()
    role: str | None = None
    description: str = ""
    validator: Callable[[Mapping[str, Any]], None] | None = None
    _params: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def param_names(self) -> frozenset[str] | None:
        """Allowed parameter names, or ``None`` when any name is accepted."""
        if self._params is not None:
            return self._params | self.extra_params | self.path_params
        if self.estimator is None:
            return None
        names = frozenset(self.estimator().get_params(deep=False))
        return names | self.extra_params | self.path_params

    def check_params(
        self, params: Mapping[str, Any]
    ) -> list[tuple[tuple[str, ...], str]]:
        """Problems with ``params``, as ``(location, message)`` pairs.

        Locations are relative to the stage's ``params`` table. Nothing is
        fitted or built; only names and values are checked.
        """
        problems: list[tuple[tuple[str, ...], str]] = []
        allowed = self.param_names()
        if allowed is not None:
            for name in params:
                if name not in allowed:
                    problems.append(
                        (
                            (name,),
                            f"unknown parameter for stage kind {self.name!r}"
                            f"{did_you_mean(name, allowed)} (accepted: "
                            f"{', '.join(sorted(allowed)) or 'none'})",
                        )
                    )
        if problems:
            return problems
        for name in sorted(self.path_params & set(params)):
            from labelclean.exceptions import OutputError
            from labelclean.io import check_relative_name

            try:
                check_relative_name(params[name])
            except OutputError as exc:
                problems.append(((name,), str(exc)))
        constraints = getattr(self.estimator, "_parameter_constraints", None)
        estimator_params = {
            k: v
            for k, v in params.items()
            if k not in self.extra_params and k not in self.path_params
        }
        if constraints and estimator_params and self.estimator is not None:
            from labelclean.utils._sklearn import validate_parameter_constraints

            for name, value in sorted(estimator_params.items()):
                if name not in constraints:
                    continue
                try:
                    validate_parameter_constraints(
                        {name: constraints[name]},
                        {name: value},
                        caller_name=self.estimator.__name__,
                    )
                except (ValueError, TypeError) as exc:
                    problems.append(((name,), str(exc)))
        if self.validator is not None and not problems:
            try:
                self.validator(params)
            except (ValueError, TypeError) as exc:
                problems.append(((), str(exc)))
        return problems


class StageRegistry:
    """Stage kinds by name, filled by the :meth:`register` decorator.

    Examples
    --------
    >>> from labelclean.pipeline import StageRegistry
    >>> registry = StageRegistry()
    >>> @registry.register("noop", params=["strength"], description="does nothing")
    ... class NoopStage:
    ...     def __init__(self, strength=1.0):
    ...         self.strength = strength
    >>> registry.get("noop").factory is NoopStage
    True
    >>> sorted(registry)
    ['noop']
    """

    def __init__(self) -> None:
        self._kinds: dict[str, StageKind] = {}

    def register(
        self,
        name: str,
        *,
        estimator: type | None = None,
        params: Iterable[str] | None = None,
        extra_params: Iterable[str] = (),
        path_params: Iterable[str] = (),
        role: str | None = None,
        description: str = "",
        validator: Callable[[Mapping[str, Any]], None] | None = None,
    ) -> Callable[[T], T]:
        """Decorator registering a stage class or factory under ``name``.

        Parameters
        ----------
        name : str
            Kind name: lowercase letters, digits and ``_``, starting with a
            letter.
        estimator : type, default=None
            Estimator class whose ``get_params()`` keys are the accepted
            parameter names and whose ``_parameter_constraints`` check the
            values.
        params : iterable of str, default=None
            Accepted parameter names when there is no ``estimator``. With
            neither, any name is accepted (not recommended).
        extra_params : iterable of str, default=()
            Stage parameters on top of the estimator's.
        path_params : iterable of str, default=()
            Parameters naming files inside the output folder.
        role : str, default=None
            Free-form role of the stage.
        description : str, default=''
            One line for listings.
        validator : callable, default=None
            Extra value checks, ``validator(params)`` raising ``ValueError``.

        Returns
        -------
        decorator : callable
            Registers its argument and returns it unchanged.

        Raises
        ------
        ValueError
            If ``name`` is malformed or already registered, or both
            ``estimator`` and ``params`` are given.
        """
        if not isinstance(name, str) or not _KIND_NAME.match(name):
            raise ValueError(
                f"stage kind name {name!r} must be lowercase letters, digits and '_', "
                "starting with a letter."
            )
        if name in self._kinds:
            raise ValueError(f"stage kind {name!r} is already registered.")
        if estimator is not None and params is not None:
            raise ValueError("give either estimator= or params=, not both.")

        def decorator(obj: T) -> T:
            if name in self._kinds:
                raise ValueError(f"stage kind {name!r} is already registered.")
            self._kinds[name] = StageKind(
                name=name,
                factory=obj,
                estimator=estimator,
                extra_params=frozenset(extra_params),
                path_params=frozenset(path_params),
                role=role,
                description=description,
                validator=validator,
                _params=frozenset(params) if params is not None else None,
            )
            return obj

        return decorator

    def get(self, name: str) -> StageKind:
        """The kind registered as ``name``.

        Raises
        ------
        PipelineDefinitionError
            If no kind has that name (with a "did you mean" suggestion).
        """
        try:
            return self._kinds[name]
        except (KeyError, TypeError):
            raise PipelineDefinitionError(self.unknown_message(name)) from None

    def unknown_message(self, name: Any) -> str:
        """The message for an unknown kind ``name``."""
        known = ", ".join(sorted(self._kinds)) or "none registered"
        hint = did_you_mean(str(name), self._kinds)
        return f"unknown stage kind {name!r}{hint} (known: {known})"

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds))

    def __len__(self) -> int:
        return len(self._kinds)


#: The library's registry of stage kinds.
STAGE_KINDS = StageRegistry()

#: Decorator registering a stage kind in :data:`STAGE_KINDS`.
register_stage_kind = STAGE_KINDS.register
