"""_tables' spreading of per-def (per-path) values over rows: the small-id table and the large-id fallback agree."""
import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from gpufl._tables import _Spread  # noqa: E402


@pytest.mark.parametrize("base", [0, 1 << 40])  # small ids: a table indexed by id; large ids: a hash lookup
def test_spread_gives_each_row_its_keys_value_and_missing_for_unknown_keys(base):
    keys = np.array([3, 1, 7], dtype=np.int64) + base
    rows = np.array([1, 7, 5, 3, 1], dtype=np.int64) + base  # 5: no such key
    spread = _Spread(keys, rows)
    assert spread.codes(np.array([10, 20, 30]), np.int16).tolist() == [20, 30, -1, 10, 20]
    numbers = spread.values(np.array([40, 2, 16]))  # an unknown key makes the column float with NaN
    assert numbers.dtype == np.float64 and [None if np.isnan(x) else x for x in numbers] == [2, 16, None, 40, 2]
    known = _Spread(keys, rows[rows != 5 + base]).values(np.array([40, 2, 16]))
    assert known.dtype == np.int64 and known.tolist() == [2, 16, 40, 2]  # every key known: the dtype stays
    names = spread.categorical(pd.Categorical(["c", "a", "b"]))
    assert [None if pd.isna(x) else x for x in names] == ["a", "b", None, "c", "a"]
    assert names.codes.dtype == np.int8  # codes of the size pandas keeps: no copy in from_codes


def test_spread_over_no_keys_is_all_missing():
    spread = _Spread(np.array([], dtype=np.int64), np.array([4, 2], dtype=np.uint32))
    assert spread.categorical(pd.Categorical([])).isna().all()
    assert np.isnan(spread.values(np.array([]))).all()
