"""We test these aspects of `wpc.bench.figures`: linear-interpolation
percentiles (agreeing with `statistics.quantiles(method="inclusive")`), the
median of odd and even counts, summaries that skip missing values, and rates.
"""

from __future__ import annotations

import statistics

import pytest

from wpc.bench import figures


def test_median_of_an_odd_count_is_the_middle_value():
    assert figures.percentile([3.0, 1.0, 2.0], 50) == 2.0


def test_median_of_an_even_count_is_the_mean_of_the_middle_two():
    assert figures.percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5


def test_p90_of_ten_values_interpolates_between_the_ninth_and_tenth():
    values = [float(v) for v in range(1, 11)]
    assert figures.percentile(values, 90) == pytest.approx(9.1)


@pytest.mark.parametrize("count", [2, 3, 7, 10, 50])
def test_percentiles_match_statistics_quantiles_inclusive(count):
    values = [((i * 7919) % 101) / 10 for i in range(count)]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    assert figures.percentile(values, 90) == pytest.approx(deciles[8])
    assert figures.percentile(values, 50) == pytest.approx(statistics.median(values))


def test_extreme_percentiles_are_the_minimum_and_maximum():
    assert figures.percentile([5.0, 1.0, 9.0], 0) == 1.0
    assert figures.percentile([5.0, 1.0, 9.0], 100) == 9.0


def test_a_single_value_is_every_percentile():
    assert figures.percentile([1.5], 90) == 1.5


def test_percentile_rejects_no_values_and_out_of_range_q():
    with pytest.raises(ValueError, match="no values"):
        figures.percentile([], 50)
    with pytest.raises(ValueError, match=r"0\.\.100"):
        figures.percentile([1.0], 101)


def test_summary_skips_missing_values():
    summary = figures.summarize([2.0, None, 4.0, 6.0])
    assert summary == figures.Summary(
        n=3, median=4.0, p90=5.6, minimum=2.0, maximum=6.0
    )
    assert summary.p90 == pytest.approx(5.6)


def test_summary_of_nothing_has_no_figures():
    assert figures.summarize([None]).as_json() == {
        "n": 0,
        "median": None,
        "p90": None,
        "minimum": None,
        "maximum": None,
    }


def test_rate_per_minute():
    assert figures.per_minute(count=50, seconds=120.0) == 25.0
    assert figures.per_minute(count=5, seconds=0.0) is None
