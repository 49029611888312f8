"""The registry of stage kinds: which ``kind = "..."`` a pipeline file may use.

A stage kind is registered with a decorator on the class (or factory
function) that builds the stage::

    @register_stage_kind("splboost", estimator=SPLBoostClassifier, role="suspects")
    class SPLBoostStage(BaseStage): ...

Pipeline definitions can only name registered kinds: nothing is imported or
evaluated from a definition, so a definition cannot run code. When a kind is
registered with its ``estimator`` class, the parameter names a definition may
give are exactly that estimator's ``get_params()`` keys, and parameter values
are checked against the estimator's ``_parameter_constraints`` before
anything runs, so the estimator stays the single source of truth for its
parameters.

The library's registry, :data:`~labelclean.pipeline.STAGE_KINDS`, holds the
built-in kinds (:mod:`labelclean.pipeline._kinds`); tests and applications may
build their own :class:`StageRegistry`.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from labelclean.exceptions import PipelineDefinitionError
from labelclean.utils._sklearn import validate_parameter_constraints
from labelclean.utils._suggest import did_you_mean

__all__ = ["StageKind", "StageRegistry"]

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
    role : str or None
        The stage's part in a cleaning run (``'confidence'``, ``'suspects'``
        or ``'model'`` for :func:`~labelclean.pipeline.build_cleaner`).
    description : str
        One line shown in listings.
    aliases : tuple of str
        Older names a definition may still use for this kind.
    """

    name: str
    factory: Any
    estimator: type | None = None
    role: str | None = None
    description: str = ""
    aliases: tuple[str, ...] = ()
    _params: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def param_names(self) -> frozenset[str] | None:
        """Allowed parameter names, or ``None`` when any name is accepted."""
        if self._params is not None:
            return self._params
        if self.estimator is None:
            return None
        return frozenset(self.estimator().get_params(deep=False))

    def build(self, params: Mapping[str, Any] | None = None) -> Any:
        """A new stage object with ``params`` (checked by :meth:`check_params`)."""
        return self.factory(**dict(params or {}))

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
        constraints = getattr(self.estimator, "_parameter_constraints", None)
        if constraints and params and self.estimator is not None:
            for name, value in sorted(params.items()):
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
        self._aliases: dict[str, str] = {}

    def register(
        self,
        name: str,
        *,
        estimator: type | None = None,
        params: Iterable[str] | None = None,
        role: str | None = None,
        description: str = "",
        aliases: Iterable[str] = (),
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
        role : str, default=None
            The stage's part in a run: ``'confidence'``, ``'suspects'`` or
            ``'model'`` for :func:`~labelclean.pipeline.build_cleaner`.
        description : str, default=''
            One line for listings.
        aliases : iterable of str, default=()
            Older names that still find this kind.

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
        aliases = tuple(aliases)
        for new in (name, *aliases):
            if not isinstance(new, str) or not _KIND_NAME.match(new):
                raise ValueError(
                    f"stage kind name {new!r} must be lowercase letters, digits and "
                    "'_', starting with a letter."
                )
            if new in self._kinds or new in self._aliases:
                raise ValueError(f"stage kind {new!r} is already registered.")
        if estimator is not None and params is not None:
            raise ValueError("give either estimator= or params=, not both.")

        def decorator(obj: T) -> T:
            if name in self._kinds:
                raise ValueError(f"stage kind {name!r} is already registered.")
            self._kinds[name] = StageKind(
                name=name,
                factory=obj,
                estimator=estimator,
                role=role,
                description=description,
                aliases=aliases,
                _params=frozenset(params) if params is not None else None,
            )
            self._aliases.update(dict.fromkeys(aliases, name))
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
            return self._kinds[self._aliases.get(name, name)]
        except (KeyError, TypeError):
            raise PipelineDefinitionError(self.unknown_message(name)) from None

    def unknown_message(self, name: Any) -> str:
        """The message for an unknown kind ``name``."""
        known = ", ".join(sorted(self._kinds)) or "none registered"
        hint = did_you_mean(str(name), [*self._kinds, *self._aliases])
        return f"unknown stage kind {name!r}{hint} (known: {known})"

    def __contains__(self, name: object) -> bool:
        return name in self._kinds or name in self._aliases

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds))

    def __len__(self) -> int:
        return len(self._kinds)
