"""Forward compatible files: the fields a newer kernelviz wrote (same schema version, keys this one does not know)
survive load -> save at every level of a capture, a job's ranks and a diff; a file without them is written as
before, byte for byte, and the notebook payload's annex is not taken for such fields."""

import dataclasses
import json
import typing

import kernelviz
from conftest import FIXTURES
from kernelviz import codec, model
from kernelviz.compare import model as compare_model
from kernelviz.compare.model import DIFF_VERSION, FORMAT, Diff
from kernelviz.model import RANKS_FORMAT, Capture, Document, FragmentNode, Ranks, Record
from kernelviz.views.payload import capture_from_bundle, payload, saved
from model_data import classes_in, full, reachable

DIFF_PAIR = ("deep/h100_capture.json", "counters/h100/mm_relu.json")  # timed, deep and counted: 19 classes


def _unknown(cls: type) -> dict:
    """The fields a newer kernelviz might add to ``cls``: one of each JSON kind, named after the class."""
    return {f"future_{cls.__name__}": {"n": [1, 2.5, None, True], "s": "é😀"}, "future_flag": False}


def _inject(tp, value, seen: set[type]) -> None:
    """Put unknown fields into every object of real JSON data ``value`` (of annotation ``tp``), in place."""
    if isinstance(value, list):
        for item in value:
            _inject(typing.get_args(tp)[0] if typing.get_origin(tp) is list else tp, item, seen)
        return
    classes = classes_in(tp)
    if not isinstance(value, dict) or not classes:
        return
    if typing.get_origin(tp) is dict:
        for item in value.values():
            _inject(typing.get_args(tp)[1], item, seen)
        return
    cls = classes[0]
    seen.add(cls)
    for name, hint in codec.field_types(cls).items():
        _inject(hint, value.get(name), seen)
    value.update(_unknown(cls))


def test_every_model_class_written_as_json_keeps_what_it_does_not_know():
    written = reachable(Capture) | reachable(Ranks) | reachable(Diff)
    declared = {c for module in (model, compare_model) for c in vars(module).values()
                if dataclasses.is_dataclass(c) and c.__module__ == module.__name__}
    # fragment nodes only in schemas 1 and 2 (read as lines since)
    assert written == declared - {FragmentNode}
    assert all(issubclass(cls, Record) for cls in written | {FragmentNode})


def test_unknown_fields_at_every_level_of_a_capture_survive_load_and_save(tmp_path, monkeypatch):
    seen: set[type] = set()
    data = full(Capture, seen, _unknown)
    assert seen == reachable(Capture)  # every class, each with its unknown fields
    capture = Capture.from_dict(json.loads(json.dumps(data)))
    assert capture.graphs[0].kernels[0].ir.occupancy._other == _unknown(type(capture.graphs[0].kernels[0].ir.occupancy))
    assert json.loads(capture.to_json()) == data  # every field, known or not, with its value
    assert capture.to_dict() == data
    path = capture.save(tmp_path / "future")
    again = kernelviz.load(path)
    assert json.loads(again.to_json()) == data and again.to_json() == capture.to_json()
    assert again == Capture.from_dict({k: v for k, v in data.items() if not k.startswith("future")})  # known alike
    monkeypatch.setattr(codec, "orjson", None)  # the standard library's way (kernelviz without its dependencies)
    assert json.loads(capture.to_json()) == data and capture.to_dict() == data


def test_unknown_fields_survive_in_a_jobs_ranks_and_in_each_rank_capture_taken_alone():
    data = full(Ranks, set(), _unknown)
    data["format"] = RANKS_FORMAT
    ranks = Ranks.from_json(json.dumps(data))
    assert json.loads(ranks.to_json()) == data
    assert json.loads(ranks.captures[0].to_json()) == data["captures"][0]
    assert json.loads(ranks.reference.to_json()) == data["reference"]
    fresh = Ranks(world_size=1, reference=ranks.reference)  # made here from a capture that keeps them
    assert json.loads(fresh.to_json())["reference"] == data["reference"]


def test_unknown_fields_survive_in_a_diff_its_parts_and_its_captures():
    data = full(Diff, set(), _unknown)
    data.update(format=FORMAT, diff_version=DIFF_VERSION)
    diff = Diff.from_json(json.dumps(data))
    assert json.loads(diff.to_json()) == data and diff.to_dict() == data
    # a diff made of two real captures with unknown fields in every object
    seen: set[type] = set()
    captures = []
    for name in DIFF_PAIR:
        raw = json.loads((FIXTURES / name).read_text())
        _inject(Capture, raw, seen)
        captures.append((raw, Capture.from_dict(raw)))
    assert len(seen) == 19
    made = kernelviz.diff(captures[0][1], captures[1][1])
    again = Diff.from_json(made.to_json())
    assert again.to_json() == made.to_json()
    for side, (raw, _) in zip("ab", captures):
        assert _futures(json.loads(made.to_json())[side]) == _futures(raw)
        assert _futures(again.to_dict()[side]) == _futures(raw)


def _futures(value, path=()) -> list:
    """(path, key, value) of every unknown field in JSON data."""
    if isinstance(value, list):
        return [f for i, item in enumerate(value) for f in _futures(item, (*path, i))]
    if not isinstance(value, dict):
        return []
    return [(path, k, v) if k.startswith("future") else f
            for k, v in value.items() for f in ([None] if k.startswith("future") else _futures(v, (*path, k)))]


def test_files_without_unknown_fields_take_the_fast_way_and_the_slow_way_writes_the_same_bytes():
    for path in sorted(FIXTURES.glob("*/*.json")):
        capture = kernelviz.load(path)
        assert not isinstance(capture, Document) or not capture._holds_other, path
        fast = capture.to_json()
        capture._holds_other = True  # as if it kept some: orjson calls back for every object
        assert capture.to_json() == fast, path


def test_the_notebook_payloads_annex_is_not_kept_as_a_field_of_the_capture():
    plain = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    for data in (payload(plain), saved(plain)):
        back = capture_from_bundle(json.loads(json.dumps(data)))
        assert not back._holds_other and back.to_json() == plain.to_json()
    assert not capture_from_bundle(payload(plain, per_kernel=False))._holds_other  # the live one, code left out
    data = full(Capture, set(), _unknown)
    future = Capture.from_dict(data)
    back = capture_from_bundle(json.loads(json.dumps(saved(future))))
    assert json.loads(back.to_json()) == data  # what the newer kernelviz wrote, and no "view"
