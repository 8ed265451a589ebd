"""A whole session as one file: save it, restore it (and keep the last one for a reload).

The file is a zip (never a pickle): ``manifest.json`` (format, version, the inputs' roles and
names, the conventions and page settings) plus one ``.npy`` (labels, dense matrices) or
scipy ``save_npz`` file per input. Restoring treats it as the untrusted upload it is: the zip's
directory is checked before anything is extracted (entry count, total uncompressed size, names),
the manifest is parsed strictly, and every input goes through :func:`build_input` — the same
worker-parsed, validated path as a file uploaded in the sidebar.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from dashboard.inputs._build import build_input, pad_edge_list
from dashboard.session import budget
from dashboard.session.state import AppState, Input
from metrics_core.validation import ClustlensInputError

FORMAT = "clustlens-session"
VERSION = 1
#: Largest session file restored (uncompressed members in total) and most members.
MAX_TOTAL_BYTES = 2 * 2**30
MAX_MEMBERS = 64
#: Widget values saved with the session: conventions and page settings (exact keys or prefixes
#: ending in "_"); buttons, uploads and chart selections are never saved.
WIDGET_KEYS = (
    "conv_average_method", "conv_noise_policy", "conv_preset", "coef_orientation",
    "active_pred", "aff_sort", "aff_sort_truth_only", "aff_colour", "aff_leak_scale",
    "ct_mode", "points_layout", "points_colour", "points_is_image",
    "points_img_h", "points_img_w", "cmp_a", "cmp_b", "diag_min_share", "diag_weak_conn",
    "diag_leak_share", "unc_n", "unc_seed", "unc_other", "runs_one_method", "mv_colour",
    "presentation_theme", "presentation_font_scale",
)  # fmt: skip


@dataclass
class Restored:
    """What a session file holds, parsed and validated."""

    truth: Input | None
    preds: list[Input]
    coef: Input | None
    data: Input | None
    widgets: dict[str, Any] = field(default_factory=dict)
    image_shape: tuple[int, int] | None = None
    created: str = ""


def _serialise(value: Any) -> tuple[str, bytes]:
    buf = io.BytesIO()
    if sp.issparse(value):
        sp.save_npz(buf, sp.csr_matrix(value), compressed=True)
        return "npz", buf.getvalue()
    arr = np.asarray(value)
    if arr.dtype == object:  # text labels: stored as unicode (no pickle)
        arr = arr.astype(str)
    np.save(buf, arr, allow_pickle=False)
    return "npy", buf.getvalue()


def widget_values(session: dict[str, Any]) -> dict[str, Any]:
    """The saved widgets' values that are plain JSON scalars."""
    out = {}
    for k in WIDGET_KEYS:
        v = session.get(k)
        if isinstance(v, (str, int, float, bool)) and not isinstance(v, np.generic):
            out[k] = v
    return out


def save(s: AppState, widgets: dict[str, Any], created: str) -> bytes:
    """The session ``s`` (inputs, each prediction's own C, X) and ``widgets`` as zip bytes."""
    entries: list[dict[str, Any]] = []
    files: dict[str, bytes] = {}

    def add(inp: Input | None, role: str, of: str | None = None) -> None:
        if inp is None:
            return
        ext, data = _serialise(inp.value)
        name = f"inputs/{len(entries)}.{ext}"
        files[name] = data
        entry = {"role": role, "name": inp.name, "file": name, "notes": list(inp.notes),
                 "demo": inp.demo}  # fmt: skip
        if of is not None:
            entry["of"] = of
        entries.append(entry)

    add(s.truth, "truth")
    for p in s.preds:
        add(p, "pred")
        add(p.own_coef, "pred_coef", of=p.name)
    add(s.coef, "coef")
    add(s.data, "data")
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "created": created,
        "inputs": entries,
        "widgets": widgets,
        "image_shape": list(s.points.image_shape) if s.points.image_shape else None,
        "from_counts": s.from_counts,
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("manifest.json", json.dumps(manifest, indent=1))
        for name, data in files.items():
            z.writestr(name, data)  # npz members are compressed already
    return out.getvalue()


def _fail(reason: str, where: str | None = None) -> ClustlensInputError:
    return ClustlensInputError(reason, source="session file", where=where)


def restore(data: bytes, *, room: int | None = None) -> Restored:
    """Parse a session file; raise :class:`ClustlensInputError` saying what is wrong and where.

    ``room``: bytes the session may be charged for the restored inputs together
    (:mod:`dashboard.session.budget`); past it the file is refused, naming the input that did
    not fit.
    """
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise _fail("not a clustlens session file (not a zip archive)") from None
    infos = z.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _fail(f"{len(infos)} members, more than a session holds ({MAX_MEMBERS})")
    total = sum(i.file_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise _fail(f"it would unpack to {total / 2**30:.1f} GiB (limit 2 GiB)")
    names = {i.filename for i in infos}
    if "manifest.json" not in names:
        raise _fail("no manifest.json: not a clustlens session file")
    try:
        manifest = json.loads(z.read("manifest.json").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(f"manifest.json is not valid JSON ({exc})", "manifest.json") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _fail("manifest.json does not say format 'clustlens-session'", "manifest.json")
    if manifest.get("version") != VERSION:
        raise _fail(f"version {manifest.get('version')!r}; this clustlens reads {VERSION}",
                    "manifest.json")  # fmt: skip
    entries = manifest.get("inputs")
    if not isinstance(entries, list):
        raise _fail("'inputs' must be a list", "manifest.json")
    out = Restored(truth=None, preds=[], coef=None, data=None, created=str(
        manifest.get("created", "")))  # fmt: skip
    own: dict[str, Input] = {}
    for i, e in enumerate(entries):
        where = f"manifest.json inputs[{i}]"
        if not isinstance(e, dict) or not {"role", "name", "file"} <= set(e):
            raise _fail("each input needs role, name and file", where)
        role, name, member = str(e["role"]), str(e["name"]), str(e["file"])
        if role not in ("truth", "pred", "coef", "data", "pred_coef"):
            raise _fail(f"unknown role {role!r}", where)
        if member not in names or not member.startswith("inputs/"):
            raise _fail(f"its file {member!r} is not in the archive", where)
        parse_role = "coef" if role == "pred_coef" else role
        try:
            inp = build_input(parse_role, member, z.read(member), room=room)
        except ClustlensInputError as exc:
            raise _fail(f"{name}: {exc.reason}", member) from None
        if room is not None:
            room -= budget.input_charge(inp)
            if room < 0:
                raise _fail(
                    f"{name}: the session's inputs need more working memory than this "
                    f"session's budget ({budget.human(budget.session_budget())}) has room for",
                    member,
                )
        inp.name, inp.demo = name, bool(e.get("demo", False))
        inp.notes = tuple(str(n) for n in e.get("notes", [])) or inp.notes
        if role == "truth":
            out.truth = inp
        elif role == "pred":
            out.preds.append(inp)
        elif role == "pred_coef":
            own[str(e.get("of", ""))] = inp
        elif role == "coef":
            out.coef = inp
        else:
            out.data = inp
    for p in out.preds:
        if p.name in own:
            p.own_coef = pad_edge_list(own[p.name], p.n)
    n = out.truth.n if out.truth is not None else None
    for inp in [*out.preds, out.coef, out.data, *(p.own_coef for p in out.preds)]:
        if inp is not None and n is not None and inp.n != n:
            raise _fail(f"{inp.name} has {inp.n:,} rows but the ground truth has {n:,}")
    widgets = manifest.get("widgets") or {}
    if isinstance(widgets, dict):
        out.widgets = {k: v for k, v in widgets.items() if k in WIDGET_KEYS
                       and isinstance(v, (str, int, float, bool))}  # fmt: skip
    shape = manifest.get("image_shape")
    if isinstance(shape, list) and len(shape) == 2 and all(isinstance(v, int) for v in shape):
        out.image_shape = (int(shape[0]), int(shape[1]))
    return out
