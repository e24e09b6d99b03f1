"""The search: which architecture llama.cpp runs computes what the source computes, and
which field is which of its tensors.

For each architecture (in ``targets.NAMES``' order, or the one asked for), and each of
its tensor layouts with as many tensors as the function reads fields, fields are paired
with its tensors in the order the forward function first reads them, then in the other
orders of fields of one shape; a pairing whose shapes don't fit is dropped before
anything is computed. For each pairing that fits, and each of the architecture's
variants (rotary bases, rewrites: ``arch.variant_groups``), the architecture's logits
are computed in f64 on the same random weights as the source's. The first whose logits
agree with the source's to 1e-8 of their size wins. When none does, the refusal says why
for each architecture: when the pairing in read order agrees with the architecture's
computation changed in one or two known ways, those are named.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import torch

from shapescript_gguf.arch import (
    ARCHITECTURES,
    Architecture,
    Pairing,
    Slot,
    Variant,
    accessor,
    logits,
    solve_dim,
    variant_groups,
)
from shapescript_gguf.targets import Computation, Join
from shapescript_gguf.source import Observation, Source, load_source, observe, random_fields

__all__ = ["MAX_PAIRINGS", "TOLERANCE", "Match", "NoMatch", "match_architecture", "search"]

_Pairing = Pairing

# Logits agree when the largest difference is at most this fraction of their largest size.
TOLERANCE = 1e-8
# Pairings computed per architecture at most: a refusal that would need every pairing of a
# model with many fields of one shape says where it stopped.
MAX_PAIRINGS = 1000
# The tokens of the sequence both sides compute (more with a sliding window: a few past
# it, so that the window shows).
_TOKENS = 8
# The shortest context a file capped at a model's window may have.
_MIN_CAP = _TOKENS


@dataclass
class Match:
    """A model written as one of llama.cpp's architectures."""

    arch: str
    pairing: dict[str, str]        # slot key → field name
    transposed: frozenset[str]     # slot keys whose field is [in out], as `x @ w` takes it
    tied: bool                     # no output layer of its own: the embedding's
    variant: Variant
    hparams: dict[str, int]        # V D L H hd KV F (n_ctx for gpt2)
    eps: float
    difference: float              # |Δ logits| / |logits| at the match
    computed: int                  # pairings × variants computed, all architectures
    seconds: float
    # Each layer's sliding window, for an architecture that runs them (else ()).
    windows: tuple[int | None, ...] = ()
    # The window of a model whose architecture runs none: the file's context is capped
    # at it, within which the window hides nothing.
    context_cap: int | None = None

    @property
    def joins(self) -> tuple[Join, ...]:
        """The fusions and splits the written tensors need (``targets.Join``)."""
        return ARCHITECTURES[self.arch].joined(frozenset(self.pairing))

    def tensor_names(self) -> dict[str, str]:
        """Field → the GGUF tensor name(s) it becomes (``blk.N`` for stacked ones)."""
        arch = ARCHITECTURES[self.arch]
        out = {}
        for slot in arch.slots:
            f = self.pairing.get(slot.key)
            if f is not None:
                name = slot.gguf.replace("{}", "N") if slot.per_block else slot.gguf
                for join in self.joins:
                    if slot.key in join.hidden():
                        into = join.whole if join.written == "whole" else "+".join(join.parts)
                        name = f"{name} -> {into}"
                out[f] = name + (" (transposed)" if slot.key in self.transposed else "")
        return out


class NoMatch(ValueError):
    """No architecture computes what the source computes: the reasons, by architecture."""

    def __init__(self, path: str, reasons: dict[str, str], computed: int) -> None:
        self.reasons = reasons
        self.computed = computed
        lines = [(f"{path} can't be written as a GGUF file: no architecture llama.cpp runs "
                  "computes what it computes")]
        for arch, why in reasons.items():
            lines.append(f"  {arch}: {why}")
        super().__init__("\n".join(lines))


@dataclass
class _Attempt:
    """What one architecture's search found."""

    match: Match | None = None
    reason: str = ""
    computed: int = 0
    best: tuple[float, _Pairing, tuple[Slot, ...], bool, Variant, dict[str, int]] | None = None
    stopped: bool = False          # MAX_PAIRINGS reached


def _fmt(x: float) -> str:
    return f"{x:.2g}"


def _field_fits(shape: tuple[int, ...], slot: Slot, layers: int,
                bound: dict[str, int]) -> Iterator[tuple[dict[str, int], bool]]:
    """The ways a field of ``shape`` fits ``slot``: the bindings that make it fit, and
    whether it is the tensor transposed (a matrix ``[in out]``, as ``x @ w`` takes it,
    where llama.cpp's is ``[out in]``, as ``linear`` takes it). A per-block slot takes
    the blocks stacked along a leading axis."""
    if slot.per_block:
        if len(shape) == len(slot.shape) + 1 and shape[0] == layers:
            shape = shape[1:]
        elif not (layers == 1 and len(shape) == len(slot.shape)):
            return
    elif len(shape) != len(slot.shape):
        return
    for transposed in (False, True) if len(shape) == 2 else (False,):
        sizes = tuple(reversed(shape)) if transposed else shape
        new: dict[str, int] = {}
        for expr, size in zip(slot.shape, sizes):
            got = solve_dim(expr, size, {**bound, **new})
            if got is None:
                break
            new.update(got)
        else:
            yield new, transposed


def _pairings(arch: Architecture, slots: tuple[Slot, ...], reads: list[str],
              shapes: dict[str, tuple[int, ...]], known: dict[str, int],
              deepest: list) -> Iterator[tuple[_Pairing, dict[str, int]]]:
    """Every pairing of the fields with ``slots`` whose shapes fit, closest to the fields
    in read order first.

    The first is depth first over the slots in the architecture's order, each taking the
    earliest-read field that fits, as it is rather than transposed. Then come the
    pairings that differ from it in one tensor (another field, or the field transposed),
    then in two, and so on: a wrong choice for an early tensor costs one computation,
    not one for every pairing of the later tensors."""
    layers = known["L"]
    first: _Pairing | None = None
    # States (slot, fields used, sizes bound, budget) from which no pairing completes: many
    # fields of one shape (a model's norms and biases) would otherwise be tried in every
    # order before a later slot that nothing fits ends each of them.
    dead: set[tuple] = set()

    def walk(i: int, used: set[str], pairing: _Pairing, bound: dict[str, int],
             budget: int) -> Iterator[tuple[_Pairing, dict[str, int]]]:
        if i == len(slots):
            if first is None or budget == 0:  # exactly the deviations asked for
                yield dict(pairing), dict(bound)
            return
        state = (i, frozenset(used), frozenset(bound.items()), budget)
        if state in dead:
            return
        produced = False
        slot = slots[i]
        if i >= deepest[0]:
            deepest[0], deepest[1] = i, (slot, dict(bound))
        for name in reads:
            if name in used:
                continue
            for new, transposed in _field_fits(shapes[name], slot, layers, bound):
                cost = 0 if first is None or first[slot.key] == (name, transposed) else 1
                if cost > budget:
                    continue
                pairing[slot.key] = (name, transposed)
                used.add(name)
                for done in walk(i + 1, used, pairing, {**bound, **new}, budget - cost):
                    produced = True
                    yield done
                used.discard(name)
                del pairing[slot.key]
        if not produced:
            dead.add(state)

    found = next(walk(0, set(), {}, dict(known), len(slots)), None)
    if found is None:
        return
    yield found
    first = found[0]
    dead.clear()  # costs count deviations from the first pairing from here on
    for deviations in range(1, len(slots) + 1):
        yield from walk(0, set(), {}, dict(known), deviations)


def _constraints(arch: Architecture, hp: dict[str, int]) -> str | None:
    """Why llama.cpp couldn't run these hyperparameters, or None."""
    c = arch.computation
    if c.post_norms and hp["L"] in _SCALED_BY_D_OVER_H.get(arch.name, ()) \
            and hp["H"] * hp["hd"] != hp["D"]:
        return (f"llama.cpp's {arch.name} with {hp['L']} layers (its largest model) scales "
                f"attention by 1/sqrt(D / H), but the heads are {hp['hd']} wide, not "
                f"{hp['D']} / {hp['H']}")
    if hp["H"] % hp["KV"]:
        return f"{hp['H']} query heads can't share {hp['KV']} key and value heads evenly"
    if c.positions != "learned" and hp["hd"] % 2:
        return f"rotary embeddings need an even head width, not {hp['hd']}"
    if c.q_width_is_d and hp["H"] * hp["hd"] != hp["D"]:
        return (f"llama.cpp's {arch.name} takes the head width as D / H = {hp['D']} / "
                f"{hp['H']}, but the attentions' heads are {hp['hd']} wide")
    return None


# llama.cpp's gemma2 and gemma3 scale attention by 1/sqrt(D / H), not 1/sqrt(hd), at the
# layer counts of their 27B models.
_SCALED_BY_D_OVER_H = {"gemma2": (46,), "gemma3": (62,)}


def _difference(a: torch.Tensor, b: torch.Tensor) -> float:
    if not torch.isfinite(b).all():
        return math.inf
    scale = a.abs().max().item() or 1.0
    return (a - b).abs().max().item() / scale


def _describe_pairing(arch: Architecture, pairing: _Pairing, tied: bool,
                      reads: list[str]) -> str:
    paired = [pairing[s.key][0] for s in arch.slots if s.key in pairing]
    flipped = [pairing[s.key][0] for s in arch.slots
               if s.key in pairing and pairing[s.key][1]]
    if paired == reads:
        text = "the fields in the order the forward function reads them"
        if flipped:
            text += f", {', '.join(flipped)} transposed"
    else:
        text = ", ".join(f"{pairing[s.key][0]}{'ᵀ' if pairing[s.key][1] else ''}→{s.key}"
                         for s in arch.slots if s.key in pairing)
    return text + (", the output layer tied to the embedding" if tied else "")


def _closest(arch: Architecture, pairing: _Pairing, tied: bool, reads: list[str],
             variant: Variant, diff: float) -> str:
    detail = variant.describe(arch.computation.positions == "rope_pairs")
    return (f"the closest pairing ({_describe_pairing(arch, pairing, tied, reads)}"
            f"{'; ' + detail if detail else ''}) gives logits that differ by {_fmt(diff)} "
            "of their size")


def _norm_reason(arch: Architecture, obs: Observation) -> tuple[str | None, float | None]:
    """The reason the source's norms rule the architecture out, else its one eps."""
    kinds = sorted({k for k, _ in obs.norms})
    if not kinds:
        return (f"a different norm: the forward function calls no {arch.norm}, where "
                f"llama.cpp's {arch.name} normalizes with {arch.norm}"), None
    others = [k for k in kinds if k != arch.norm]
    if others:
        return (f"a different norm: the model normalizes with {' and '.join(others)}, "
                f"where llama.cpp's {arch.name} uses {arch.norm}"), None
    eps = sorted({e for _, e in obs.norms if e is not None})
    if any(e is None for _, e in obs.norms):
        return (f"an {arch.norm} call has no eps written in it; a GGUF file holds one eps "
                "for every norm: write eps= in each call"), None
    if len(eps) > 1:
        return (f"its {arch.norm} calls use different eps ({', '.join(map(str, eps))}); a "
                "GGUF file holds one eps for every norm"), None
    return None, float(eps[0])


def _try(arch: Architecture, source: Source, obs: Observation,
         values: dict[str, torch.Tensor], ids: torch.Tensor, pos: torch.Tensor,
         known: dict[str, int]) -> _Attempt:
    """One architecture's search: each pairing of the fields with its tensors that fits,
    in order, until one agrees, or the pairing in read order is explained by a computation
    that differs from the architecture's in one or two named ways."""
    attempt = _Attempt()
    why, eps = _norm_reason(arch, obs)
    if why is None:
        why, layouts = _layouts(arch, source, obs.reads)
    window = min((w for w in obs.windows if w is not None), default=None)
    if why is None and window is not None and not arch.computation.windows:
        # llama.cpp runs no window here: the file's context is capped at the window, so
        # the positions before it, where the window hides nothing, are what must agree.
        if window < _MIN_CAP:
            why = (f"llama.cpp's {arch.name} runs no sliding window, and a file capped at "
                   f"the model's window of {window} positions (where it hides nothing) "
                   f"would hold fewer than {_MIN_CAP}")
        obs = replace(obs, logits=obs.logits[:window], windows=())
        ids, pos = ids[:window], pos[:window]
    if why is not None:
        attempt.reason = why
        return attempt
    assert eps is not None  # the norms' one eps, when they have no reason against them
    reads = obs.reads
    shapes = {f: source.fields[f] for f in reads}
    shape_failure = None
    first: tuple | None = None   # the read-order pairing's closest: (diff, pairing, …)
    for slots, tied in layouts:
        deepest: list = [0, None]
        fitted = 0
        for pairing, hp in _pairings(arch, slots, reads, shapes, known, deepest):
            fitted += 1
            if fitted > MAX_PAIRINGS:
                attempt.stopped = True
                break
            bad = _constraints(arch, hp)
            if bad is not None:
                shape_failure = shape_failure or bad
                continue
            closest = _try_variants(arch, attempt, values, obs, ids, pos, eps, pairing,
                                    slots, tied, hp)
            if attempt.match is not None:
                if window is not None and not arch.computation.windows:
                    attempt.match.context_cap = window
                return attempt
            if first is None:
                first = closest
                # A model written as the architecture reads its fields in order: when
                # that pairing is the architecture with one or two differences, name
                # them; no other pairing can agree with llama.cpp's computation.
                if _diagnose(arch, attempt, values, obs, ids, pos, eps, first):
                    return attempt
        if not fitted and deepest[1] is not None and shape_failure is None:
            slot, bound = deepest[1]
            shape_failure = _unfitted(slot, bound, known)
    if attempt.best is None or first is None:
        attempt.reason = shape_failure or "no pairing of the fields fits the tensors' shapes"
        return attempt
    # A pairing that nearly agrees says more than the read order; a far one says nothing
    # (it is some scramble of the fields), so the read order's difference is reported.
    diff, pairing, _slots, tied, variant, _hp = (
        attempt.best if attempt.best[0] < _NEAR else first)
    attempt.reason = _closest(arch, pairing, tied, reads, variant, diff)
    if attempt.stopped:
        attempt.reason += (f" (the search stopped after the {MAX_PAIRINGS} pairings closest "
                           "to the read order)")
    return attempt


# A closest pairing whose logits differ by less than this fraction is reported as the
# closest; otherwise the pairing in read order is.
_NEAR = 1e-2


def _layouts(arch: Architecture, source: Source,
             reads: list[str]) -> tuple[str | None, list[tuple[tuple[Slot, ...], bool]]]:
    """The slot lists the fields read can fill, each with whether the output layer is
    tied to the embedding, or why none."""
    if arch.computation.positions == "learned" and not source.has_pos:
        return (f"llama.cpp's {arch.name} learns position embeddings, which need the "
                "positions as the forward function's third parameter"), []
    layouts = list(arch.layouts(len(reads)))
    if layouts:
        return None, layouts
    counts = arch.counts()
    allowed = (", ".join(map(str, counts[:-1])) + f" or {counts[-1]}") if len(counts) > 1 \
        else str(counts[0])
    return (f"a different number of tensors: llama.cpp's {arch.name} takes {allowed} "
            f"(with the blocks stacked); the forward function reads {len(reads)} fields "
            f"({', '.join(reads)})"), []


def _compute(arch: Architecture, c: Computation, values: dict[str, torch.Tensor],
             pairing: _Pairing, tied: bool, variant: Variant, hp: dict[str, int],
             ids: torch.Tensor, pos: torch.Tensor, eps: float,
             windows: tuple[int | None, ...] = ()) -> torch.Tensor:
    get = accessor(arch, values, pairing, tied, variant, hp)
    with torch.no_grad():
        return logits(c, get, ids, pos, hp, eps, variant, windows)


def _try_variants(arch: Architecture, attempt: _Attempt, values: dict[str, torch.Tensor],
                  obs: Observation, ids: torch.Tensor, pos: torch.Tensor, eps: float,
                  pairing: _Pairing, slots: tuple[Slot, ...], tied: bool,
                  hp: dict[str, int]) -> tuple:
    """Computes the architecture's variants on one pairing that fits, keeping the closest
    so far in ``attempt.best`` and setting ``attempt.match`` when one agrees. Returns
    this pairing's closest: (difference, pairing, slots, tied, variant, hyperparameters)."""
    closest: tuple | None = None
    for group in variant_groups(arch, hp, slots, obs.windows):
        for variant in group:
            attempt.computed += 1
            ref = _compute(arch, arch.computation, values, pairing, tied, variant, hp,
                           ids, pos, eps, obs.windows)
            diff = _difference(obs.logits, ref)
            if closest is None or diff < closest[0]:
                closest = (diff, dict(pairing), slots, tied, variant, dict(hp))
            if attempt.best is None or diff < attempt.best[0]:
                attempt.best = closest
            if diff <= TOLERANCE:
                attempt.match = Match(
                    arch.name, {k: f for k, (f, _) in pairing.items()},
                    frozenset(k for k, (_, t) in pairing.items() if t), tied, variant,
                    dict(hp), eps, diff, 0, 0.0,
                    obs.windows if arch.computation.windows else ())
                return closest
            # The group's variants agree on the first token: when it differs, none of
            # them can agree.
            if _difference(obs.logits[:1], ref[:1]) > TOLERANCE:
                break
    assert closest is not None
    return closest


def _unfitted(slot: Slot, bound: dict[str, int], known: dict[str, int]) -> str:
    """Why no pairing fits: the first slot that no field left fits (the deepest the
    pairings reached), with the sizes its shape needs."""
    names = sorted({t for e in slot.shape for t in e.replace("*", " ").replace(
        "+", " ").split() if t in bound})
    sizes = ", ".join(f"{n} = {bound[n]}" for n in names)
    want = f"[{' '.join(slot.shape)}]" + (f" with {sizes}" if sizes else "")
    name = slot.gguf.replace("{}", "N")
    stacked = (f", stacked along a leading axis of L = {known['L']}"
               if slot.per_block else "")
    return f"a different shape: no field left fits {name}, {want}{stacked}"


def _flips(arch: Architecture) -> list[tuple[Computation, str, str | None]]:
    """Computations one difference away from the architecture's, each with what that
    difference is, in the source's terms, and where the source computes it (a kind of
    ``Observation.sites``): a refusal whose read-order pairing agrees with one or two of
    them names them, at that line."""
    c = arch.computation
    name = arch.name
    out: list[tuple[Computation, str, str | None]] = []
    scaled = [t.name for t in ARCHITECTURES.values() if t.computation.embed_scale]
    if c.embed_scale:
        out.append((replace(c, embed_scale=False),
                    f"the embedding isn't multiplied by sqrt(D); {name} does that", "embedding"))
    else:
        out.append((replace(c, embed_scale=True),
                    f"the embedding is multiplied by sqrt(D); {_those(scaled)} that, "
                    f"{name} doesn't", "embedding"))
    if not c.parallel:
        parallel = [t.name for t in ARCHITECTURES.values() if t.computation.parallel]
        out.append((replace(c, parallel=True),
                    "attention and the feed-forward layer read the same input (a parallel "
                    f"residual); {_those(parallel)} that, {name} runs them in sequence",
                    "residual"))
    for act in ("silu", "gelu_tanh", "gelu"):
        if act != c.act:
            out.append((replace(c, act=act), _activation_words(name, c, act), "activation"))
    return out


def _those(names: list[str]) -> str:
    """``gemma does`` / ``gemma and gemma2 do`` / ``gemma, gemma2 and gemma3 do``."""
    if len(names) == 1:
        return f"{names[0]} does"
    return f"{', '.join(names[:-1])} and {names[-1]} do"


def _activation_words(name: str, c: Computation, act: str) -> str:
    """The source's activation ``act`` where the architecture computes ``c.act``."""
    if c.act == "silu":
        return f"the feed-forward layer's gate uses GELU where llama.cpp's {name} uses SiLU (SwiGLU)"
    if act == "gelu":
        return (f"the model computes GELU exactly (with erf), where llama.cpp's {name} uses "
                "the tanh approximation")
    return f"the feed-forward layer uses SiLU where llama.cpp's {name} uses GELU with tanh"


def _diagnose(arch: Architecture, attempt: _Attempt, values: dict[str, torch.Tensor],
              obs: Observation, ids: torch.Tensor, pos: torch.Tensor, eps: float,
              first: tuple) -> bool:
    """Whether the pairing in read order is the architecture's computation with one or two
    of the differences ``_flips`` knows: then the refusal names them (True)."""
    _diff, pairing, slots, tied, _variant, hp = first
    flips = _flips(arch)
    candidates = [[f] for f in flips] + [list(p) for p in itertools.combinations(flips, 2)]
    for chosen in candidates:
        near = arch.computation
        for c, _, _ in chosen:
            near = _merge(near, c, arch.computation)
        for group in variant_groups(replace(arch, computation=near), hp, slots, obs.windows):
            for v in group:
                attempt.computed += 1
                ref = _compute(arch, near, values, pairing, tied, v, hp, ids, pos, eps,
                               obs.windows)
                if _difference(obs.logits, ref) <= TOLERANCE:
                    # The source is this variant with these differences: report the
                    # difference of this variant as llama.cpp computes it.
                    attempt.computed += 1
                    ref = _compute(arch, arch.computation, values, pairing, tied, v, hp,
                                   ids, pos, eps, obs.windows)
                    closest = _closest(arch, pairing, tied, obs.reads, v,
                                       _difference(obs.logits, ref))
                    meaning = "; and ".join(m for _, m, _ in chosen)
                    where = next((obs.sites[k] for _, _, k in chosen if k in obs.sites), None)
                    attempt.reason = f"{where + ': ' if where else ''}{meaning}: {closest}"
                    return True
                if _difference(obs.logits[:1], ref[:1]) > TOLERANCE:
                    break
    return False


def _merge(into: Computation, flipped: Computation, base: Computation) -> Computation:
    """``into`` with the fields in which ``flipped`` differs from ``base``."""
    changes = {f: getattr(flipped, f) for f in Computation.__dataclass_fields__
               if getattr(flipped, f) != getattr(base, f)}
    return replace(into, **changes)


def search(source: Source, arch: str | None = None, seed: int = 0) -> Match:
    """Find the architecture and pairing for a loaded source (see the module doc).
    Raises ``NoMatch`` (a ``ValueError``) saying why for each architecture tried."""
    threads = torch.get_num_threads()
    # The computations are small: one thread is faster than several on a busy machine.
    torch.set_num_threads(1)
    try:
        return _search(source, arch, seed)
    finally:
        torch.set_num_threads(threads)


def _search(source: Source, arch: str | None, seed: int) -> Match:
    start = time.perf_counter()
    names = [arch] if arch is not None else list(ARCHITECTURES)
    for name in names:
        if name not in ARCHITECTURES:
            raise ValueError(f"unknown architecture {name!r}: choose "
                             + " or ".join(ARCHITECTURES))
    g = torch.Generator().manual_seed(seed)
    n = _TOKENS if source.window is None else max(_TOKENS, source.window + 4)
    n = n if source.positions is None else max(1, min(n, source.positions))
    ids = torch.randint(0, source.vocab, (n,), generator=g)
    pos = torch.arange(n)
    values = random_fields(source.fields, seed)
    obs = observe(source, values, ids, pos)
    if not obs.attentions:
        raise ValueError(f"{source.path}: `{source.fn}` runs no attention "
                         "(scaled_dot_product_attention), which llama.cpp's architectures "
                         "are made of")
    heads, _, _, hd = obs.attentions[0]
    if any((a[0], a[3]) != (heads, hd) for a in obs.attentions):
        raise ValueError(f"{source.path}: `{source.fn}`'s attentions differ in their heads "
                         "or head width; llama.cpp runs one shape for every block")
    known = {"V": source.vocab, "H": heads, "hd": hd, "L": len(obs.attentions)}
    if obs.logits.shape[-1] != source.vocab:
        raise ValueError(f"{source.path}: `{source.fn}` returns {obs.logits.shape[-1]} "
                         f"logits per token, not V = {source.vocab}")
    reasons: dict[str, str] = {}
    computed = 0
    for name in names:
        attempt = _try(ARCHITECTURES[name], source, obs, values, ids, pos, known)
        computed += attempt.computed
        if attempt.match is not None:
            attempt.match.computed = computed
            attempt.match.seconds = time.perf_counter() - start
            return attempt.match
        reasons[name] = attempt.reason
    raise NoMatch(source.path, reasons, computed)


def match_architecture(path: str, *, fn: str = "forward", arch: str | None = None) -> Match:
    """Which of llama.cpp's architectures (``targets.NAMES``) computes what the forward
    function ``fn`` of the ShapeScript file ``path`` computes, and which field is which
    of its tensors, found by computing both in f64 on random weights.

    Returns a ``Match`` (``.arch``, ``.pairing`` slot → field, ``.variant``: rotary base
    and query/key reordering, ``.hparams``, ``.eps``, ``.computed``: how many pairings ×
    variants were computed). Raises ``ValueError`` saying why for each architecture
    when none does, ``ShapeScriptError`` when the file has errors.
    """
    return search(load_source(path, fn), arch)
