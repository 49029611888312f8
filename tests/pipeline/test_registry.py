"""The stage-kind registry: decorator registration, names, parameter checks."""

import pytest
from sklearn.base import BaseEstimator

from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline import STAGE_KINDS, StageRegistry, register_stage_kind


class _Est(BaseEstimator):
    def __init__(self, alpha=1.0, beta=None):
        self.alpha = alpha
        self.beta = beta


def test_decorator_returns_the_object_and_registers_it():
    registry = StageRegistry()

    @registry.register("my_stage", estimator=_Est, role="final_model", description="d")
    class MyStage:
        pass

    kind = registry.get("my_stage")
    assert kind.factory is MyStage
    assert kind.estimator is _Est
    assert kind.role == "final_model"
    assert kind.param_names() == {"alpha", "beta"}
    assert list(registry) == ["my_stage"] and len(registry) == 1
    assert "my_stage" in registry and "other" not in registry


def test_function_factories_can_be_registered():
    registry = StageRegistry()

    @registry.register("make", params=["k"])
    def make(k=1):
        return k

    assert registry.get("make").factory is make
    assert registry.get("make").check_params({"k": 2}) == []


def test_registration_errors():
    registry = StageRegistry()
    registry.register("a", params=[])(object)
    with pytest.raises(ValueError, match="already registered"):
        registry.register("a", params=[])
    with pytest.raises(ValueError, match="lowercase letters"):
        registry.register("Bad-Name")
    with pytest.raises(ValueError, match="not both"):
        registry.register("b", estimator=_Est, params=["x"])


def test_unknown_kind_suggests():
    registry = StageRegistry()
    registry.register("bayes_confidence", params=[])(object)
    with pytest.raises(
        PipelineDefinitionError, match="did you mean 'bayes_confidence'"
    ):
        registry.get("bayes_confidnce")


def test_params_checks():
    registry = StageRegistry()
    registry.register("e", estimator=_Est)(object)
    registry.register("free")(object)
    kind = registry.get("e")
    assert kind.check_params({"alpha": 2.0}) == []
    [(location, message)] = kind.check_params({"alpah": 1})
    assert location == ("alpah",)
    assert "did you mean 'alpha'" in message and "accepted: alpha, beta" in message
    # A kind registered without a parameter list accepts any name.
    assert registry.get("free").param_names() is None
    assert registry.get("free").check_params({"anything": 1}) == []


def test_library_registry_is_a_registry():
    assert isinstance(STAGE_KINDS, StageRegistry)
    assert register_stage_kind.__self__ is STAGE_KINDS


def test_builtin_kinds_are_the_python_vocabulary():
    # The names LabelCleaner takes are the kinds a definition names.
    assert sorted(STAGE_KINDS) == [
        "adaboost_trees",
        "bayes",
        "cb_adaboost",
        "cb_adaboost_deep",
        "cb_adaboost_trees",
        "knn",
        "rosr",
        "spbl",
        "splboost",
    ]
    roles = {name: STAGE_KINDS.get(name).role for name in STAGE_KINDS}
    assert roles["knn"] == roles["bayes"] == "confidence"
    assert roles["splboost"] == "suspects"
    # The older names still find their kinds.
    assert STAGE_KINDS.get("knn_confidence") is STAGE_KINDS.get("knn")
    assert STAGE_KINDS.get("bayes_confidence") is STAGE_KINDS.get("bayes")
    assert "knn_confidence" in STAGE_KINDS


def test_aliases_cannot_shadow_a_kind():
    registry = StageRegistry()
    registry.register("a", params=[], aliases=["old_a"])(object)
    with pytest.raises(ValueError, match="already registered"):
        registry.register("old_a", params=[])
    assert registry.get("old_a") is registry.get("a")
