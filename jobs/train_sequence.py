"""Training of the `neighbours` model's sequence net (`pipeline.learned.convnet`) with PyTorch.

Imported by `jobs/train_cleaner.py`; needs the ``train`` extra (torch). The net sees each page
whole: its blocks' own feature rows as a sequence (padded with zeros to the longest page of a
batch, padding masked out of every layer and of the page pooling, so a page's output is the same
alone as in a batch), trained with binary cross-entropy over the labelled blocks, each weighted
by its characters ** 0.5 (the metric counts words, yet one long block must not outweigh a page
of short ones). The weights shipped are the average of the weights at the end of the last 8 of 20
epochs (stochastic weight averaging): single nets of different seeds scattered by 0.005 in
cross-validated F1, and the average is as good as or better than the best of them at no cost in
inference (scratch harness, two seeds: 0.8665 / 0.8627 -> 0.8685 / 0.8675 alone; held-out
0.8548 / 0.8558 -> 0.8573 / 0.8589).

Everything is seeded and runs on one thread, so a re-run on the same machine and torch version
gives the same weights. The exported arrays are checked against torch's own output before they
are returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.learned.columns import N_FEATURES, OWN_FEATURES
from pipeline.learned.convnet import net_from_spec


@dataclass(frozen=True)
class NetShape:
    hidden: int = 32
    dilations: tuple[int, ...] = (1, 2, 4, 8)
    epochs: int = 20
    averaged_epochs: int = 8  # the weights shipped are the mean over the last epochs' ends
    learning_rate: float = 2e-3
    weight_decay: float = 1e-5
    clip: float = 5.0
    size_power: float = 0.5
    batch_blocks: int = 6000  # padded blocks per batch (pages of similar length together)


SHAPE = NetShape()
COLUMNS = len(OWN_FEATURES)


@dataclass(frozen=True)
class PageRows:
    x: np.ndarray  # (blocks, COLUMNS) float32, standardised and clipped
    y: np.ndarray  # (blocks,) 1 / 0 / -1 unknown
    weight: np.ndarray  # (blocks,) 0 where the label is unknown


def _net_class(torch: object, shape: NetShape) -> type:
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            h = shape.hidden
            self.inp = nn.Linear(COLUMNS, h)
            self.convs = nn.ModuleList(
                nn.Conv1d(h, h, 3, padding=d, dilation=d) for d in shape.dilations
            )
            self.page = nn.Linear(2 * h, h)
            self.out = nn.Linear(2 * h, 1)

        def forward(self, x, mask):  # x (B, T, C), mask (B, T)
            h = torch.relu(self.inp(x)) * mask[..., None]
            h = h.transpose(1, 2)
            for conv in self.convs:
                h = (h + torch.relu(conv(h))) * mask[:, None, :]
            h = h.transpose(1, 2)
            count = mask.sum(1, keepdim=True).clamp(min=1)
            mean = (h * mask[..., None]).sum(1) / count
            most = (h - 1e4 * (1 - mask[..., None])).max(1).values
            page = torch.relu(self.page(torch.cat([mean, most], 1)))
            both = torch.cat([h, page[:, None, :].expand_as(h)], 2)
            return self.out(both).squeeze(-1)

    return Net


def _rows(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    sizes: Sequence[np.ndarray],
    mean: np.ndarray,
    scale: np.ndarray,
    shape: NetShape,
    page_weights: Sequence[float] | None = None,
) -> list[PageRows]:
    factors = [1.0] * len(xs) if page_weights is None else page_weights
    out = []
    for x, y, size, factor in zip(xs, ys, sizes, factors, strict=True):
        z = np.clip((x[:, :COLUMNS] - mean) / scale, -shape.clip, shape.clip)
        w = factor * np.asarray(size, np.float64) ** shape.size_power * (y >= 0)
        out.append(PageRows(z.astype(np.float32), y, w.astype(np.float32)))
    return out


def _batches(
    pages: list[PageRows], shape: NetShape, rng: np.random.Generator | None
) -> list[list[int]]:
    """Lists of page indices, pages of similar length together, at most ``batch_blocks`` padded
    blocks each; shuffled when ``rng`` is given."""
    order = np.argsort([len(p.x) for p in pages], kind="stable")
    groups: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        n = len(pages[i].x)
        if n == 0:
            continue
        if current and max(longest, n) * (len(current) + 1) > shape.batch_blocks:
            groups.append(current)
            current, longest = [], 0
        current.append(int(i))
        longest = max(longest, n)
    if current:
        groups.append(current)
    if rng is not None:
        rng.shuffle(groups)
    return groups


def _tensors(torch: object, pages: list[PageRows], group: list[int]):
    t = max(len(pages[i].x) for i in group)
    x = np.zeros((len(group), t, COLUMNS), np.float32)
    mask = np.zeros((len(group), t), np.float32)
    y = np.zeros((len(group), t), np.float32)
    w = np.zeros((len(group), t), np.float32)
    for j, i in enumerate(group):
        p = pages[i]
        n = len(p.x)
        x[j, :n], mask[j, :n], y[j, :n], w[j, :n] = p.x, 1.0, np.maximum(p.y, 0), p.weight
    return tuple(torch.from_numpy(a) for a in (x, mask, y, w))


def fit_net(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    sizes: Sequence[np.ndarray],
    seed: int,
    shape: NetShape = SHAPE,
    page_weights: Sequence[float] | None = None,
) -> dict:
    """Train on pages (feature matrices, block labels, block sizes); the JSON spec
    `pipeline.learned.convnet.net_from_spec` reads. ``page_weights`` scale each page's blocks
    in the loss (bench/row_weights.py's ``--weighted-nets``; the shipped nets use none)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    own = np.vstack([x[:, :COLUMNS] for x in xs if len(x)])
    mean = own.mean(axis=0)
    scale = own.std(axis=0)
    scale[scale < 1e-6] = 1.0  # a column constant in training: centred, not blown up
    pages = _rows(xs, ys, sizes, mean, scale, shape, page_weights)
    net = _net_class(torch, shape)()
    opt = torch.optim.Adam(
        net.parameters(), lr=shape.learning_rate, weight_decay=shape.weight_decay
    )
    loss_of = torch.nn.functional.binary_cross_entropy_with_logits
    averaged: dict | None = None
    for epoch in range(shape.epochs):
        for group in _batches(pages, shape, rng):
            x, mask, y, w = _tensors(torch, pages, group)
            loss = (loss_of(net(x, mask), y, reduction="none") * w).sum() / w.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        done = epoch - (shape.epochs - shape.averaged_epochs) + 1
        if done >= 1:
            state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            if averaged is None:
                averaged = state
            else:
                for k, v in state.items():
                    averaged[k] += (v - averaged[k]) / done
    if averaged is not None:
        net.load_state_dict(averaged)
    spec = _export(net, mean, scale, shape)
    _check_export(torch, net, spec, pages, xs)
    return spec


def _export(net: object, mean: np.ndarray, scale: np.ndarray, shape: NetShape) -> dict:
    def arr(t: object) -> list:
        return t.detach().double().numpy().tolist()

    h = shape.hidden
    convs = []
    for conv, d in zip(net.convs, shape.dilations, strict=True):
        # torch's (out, in, tap) as (tap * hidden + in, out): the taps side by side.
        w = conv.weight.detach().double().numpy().transpose(2, 1, 0).reshape(3 * h, h)
        convs.append({"weight": w.tolist(), "bias": arr(conv.bias), "dilation": d})
    return {
        "kind": "dilated-conv",
        "columns": COLUMNS,
        "hidden": h,
        "clip": shape.clip,
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "w_in": arr(net.inp.weight.T),
        "b_in": arr(net.inp.bias),
        "convs": convs,
        "w_page": arr(net.page.weight.T),
        "b_page": arr(net.page.bias),
        "w_out": arr(net.out.weight[0]),
        "b_out": float(net.out.bias.item()),
    }


def _check_export(
    torch: object, net: object, spec: dict, pages: list[PageRows], xs: Sequence[np.ndarray]
) -> None:
    """The numpy net from the exported spec must give torch's logits (float32 rounding aside)
    on a sample of the training pages, each scored alone."""
    numpy_net = net_from_spec(spec, N_FEATURES)
    with torch.no_grad():
        for i in range(0, len(pages), max(1, len(pages) // 25)):
            if not len(pages[i].x):
                continue
            x, mask, _, _ = _tensors(torch, pages, [i])
            expected = net(x, mask)[0].double().numpy()
            got = numpy_net.raw(np.asarray(xs[i], np.float64))
            if not np.allclose(got, expected, atol=1e-3):
                raise AssertionError(
                    f"exported net disagrees with torch on page {i}: max difference "
                    f"{np.abs(got - expected).max():.2e}"
                )


def net_probs(spec: dict, xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Content probabilities of every page's blocks from an exported spec, in numpy."""
    from pipeline.learned.model import sigmoid

    net = net_from_spec(spec, N_FEATURES)
    return [sigmoid(net.raw(x)) if len(x) else np.zeros(0) for x in xs]
