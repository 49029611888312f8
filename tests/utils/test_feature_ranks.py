"""Numbers of the neighbour distance read by their rank."""

import numpy as np
import pandas as pd

from labelclean.utils._feature_ranks import MAX_KNOTS, apply_ranks, fit_ranks
from labelclean.utils._feature_weights import value_outputs
from labelclean.utils._features import make_feature_encoder

SD = 1 / np.sqrt(12)


def test_training_values_read_their_mid_rank_and_new_ones_are_placed_between():
    Z = np.array([[1.0, 5.0], [2.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    ranks = fit_ranks(Z, np.array([0]))
    out = apply_ranks(Z, ranks)
    # ties share the places: 1 is below none (half of itself), 2 below one
    np.testing.assert_allclose(out[:, 0], (np.array([1, 4, 4, 7]) / 8 - 0.5) / SD)
    np.testing.assert_array_equal(out[:, 1], Z[:, 1])  # not a ranked column
    new = apply_ranks(np.array([[0.0, 0], [1.5, 0], [9.0, 0]]), ranks)[:, 0]
    np.testing.assert_allclose(new, (np.array([1, 2.5, 7]) / 8 - 0.5) / SD)
    assert apply_ranks(Z, None) is Z


def test_many_distinct_values_keep_at_most_the_knots_and_their_order():
    rng = np.random.RandomState(0)
    Z = rng.lognormal(size=(20_000, 1))
    ranks = fit_ranks(Z, np.array([0]))
    assert ranks["values"][0].shape[0] <= MAX_KNOTS
    out = apply_ranks(Z, ranks)[:, 0]
    order = np.argsort(Z[:, 0])
    assert np.all(np.diff(out[order]) >= 0)
    # the share read is the rank's within a knot's width
    share = out * SD + 0.5
    truth = (np.argsort(order) + 0.5) / Z.shape[0]
    assert np.abs(share - truth).max() < 2 / MAX_KNOTS


def test_only_numbers_and_dates_are_value_outputs():
    X = pd.DataFrame({
        "n": [1.0, np.nan, 3.0, 4.0],
        "colour": ["a", "b", "a", "b"],
        "when": pd.to_datetime(["2020-01-01", "2020-02-01", None, "2020-03-01"]),
    })  # fmt: skip
    encoder = make_feature_encoder(X)
    Z = encoder.fit_transform(X)
    columns = value_outputs(encoder, 3)
    # n, its missing indicator, when, its indicator, two one-hot levels
    assert Z.shape[1] == 6
    names = list(encoder.get_feature_names_out())
    assert [names[j] for j in columns] == ["n", "when"]
    array = make_feature_encoder(None).fit(np.array([[1.0, np.nan], [2.0, 3.0]]))
    np.testing.assert_array_equal(value_outputs(array, 2), [0, 1])
