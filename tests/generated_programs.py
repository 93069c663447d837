"""Hypothesis strategies that build DataLoader programs from the forms of the fixture cases.

A program combines, at random: import forms and aliases; Datasets (map-style or iterable)
that draw from NumPy's global RNG, `random`, torch, or an RNG object created in `__init__`,
as a class attribute or at module level, and that may reseed from the worker id or ask
`get_worker_info()`; worker_init_fns (named, lambda, nested, `functools.partial`, None)
that seed well or badly; and DataLoader calls with keyword or positional arguments,
`**kwargs` dicts, `generator=` and `persistent_workers=`. `project()` spreads one program
over two files; `dressed()` gives a program a random format (a shebang, a coding cookie and
non-ASCII text, tab indentation, CRLF or CR line endings). Every program parses; none is
meant to run.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["Names", "dressed", "names", "program", "project"]


@dataclass(frozen=True)
class Names:
    """How a program spells the modules and names it uses (import forms and aliases)."""

    imports: tuple[str, ...]
    np: str
    random: str
    #: torch.utils.data names, as the program writes them.
    loader: str
    dataset: str
    iterable_dataset: str
    worker_info: str
    partial: str


@st.composite
def names(draw: st.DrawFn) -> Names:
    """Draw a consistent set of import statements and the spellings they make available."""
    numpy_import, np = draw(
        st.sampled_from(
            [
                ("import numpy as np", "np"),
                ("import numpy", "numpy"),
                ("import numpy as onp", "onp"),
            ]
        )
    )
    random_import, random = draw(
        st.sampled_from([("import random", "random"), ("import random as pyrandom", "pyrandom")])
    )
    data_imports, loader, dataset, iterable, info = draw(
        st.sampled_from(
            [
                (
                    (
                        "from torch.utils.data import DataLoader, Dataset, IterableDataset",
                        "from torch.utils.data import get_worker_info",
                    ),
                    "DataLoader",
                    "Dataset",
                    "IterableDataset",
                    "get_worker_info",
                ),
                (
                    (
                        "from torch.utils.data import DataLoader as Loader, Dataset as Base",
                        "from torch.utils.data import IterableDataset as Stream, "
                        "get_worker_info as wi",
                    ),
                    "Loader",
                    "Base",
                    "Stream",
                    "wi",
                ),
                (
                    ("from torch.utils import data",),
                    "data.DataLoader",
                    "data.Dataset",
                    "data.IterableDataset",
                    "data.get_worker_info",
                ),
                (
                    ("import torch.utils.data as tud",),
                    "tud.DataLoader",
                    "tud.Dataset",
                    "tud.IterableDataset",
                    "tud.get_worker_info",
                ),
                (
                    (),
                    "torch.utils.data.DataLoader",
                    "torch.utils.data.Dataset",
                    "torch.utils.data.IterableDataset",
                    "torch.utils.data.get_worker_info",
                ),
                (
                    (
                        "from torch.utils.data.dataloader import DataLoader",
                        "from torch.utils.data import Dataset, IterableDataset, get_worker_info",
                    ),
                    "DataLoader",
                    "Dataset",
                    "IterableDataset",
                    "get_worker_info",
                ),
            ]
        )
    )
    partial_import, partial = draw(
        st.sampled_from(
            [
                ("from functools import partial", "partial"),
                ("import functools", "functools.partial"),
            ]
        )
    )
    lines = [numpy_import, random_import, "import torch", *data_imports, partial_import]
    ordered = draw(st.permutations(lines)) if draw(st.booleans()) else lines
    return Names(tuple(ordered), np, random, loader, dataset, iterable, info, partial)


# --- RNG objects and what draws from them ---

#: RNG object kinds: constructor template (`{np}`, `{random}`, `{seed}`) and draw templates.
RNG_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "default_rng": (
        "{np}.random.default_rng({seed})",
        ("{rng}.random()", "{rng}.integers(0, 10)", "{rng}.normal(0.0, 1.0, size=3)"),
    ),
    "RandomState": (
        "{np}.random.RandomState({seed})",
        ("{rng}.rand()", "{rng}.randint(0, 10)", "{rng}.normal(size=2)"),
    ),
    "Generator": (
        "{np}.random.Generator({np}.random.PCG64({seed}))",
        ("{rng}.random()", "{rng}.uniform(-1, 1)"),
    ),
    "Random": (
        "{random}.Random({seed})",
        ("{rng}.random()", "{rng}.randint(0, 9)", "{rng}.uniform(0.5, 1.5)"),
    ),
    "torch.Generator": (
        "torch.Generator()",
        ("torch.rand(3, generator={rng})", "torch.randint(0, 10, (1,), generator={rng})"),
    ),
    "torch.Generator.manual_seed": (
        "torch.Generator().manual_seed({seed_or_zero})",
        ("torch.randn(2, generator={rng})", "torch.randperm(4, generator={rng})"),
    ),
}

GLOBAL_DRAWS = (
    "{np}.random.rand()",
    "{np}.random.randint(0, 10)",
    "{np}.random.normal(0.0, 1.0)",
    "{np}.random.uniform(-1, 1, size=(2, 2))",
    "{np}.random.choice([1, 2, 3])",
    "{np}.random.permutation(8)",
    "{random}.random()",
    "{random}.randint(0, 9)",
    "torch.rand(1)",
    "torch.randint(0, 10, (2,))",
)

#: Statements that reseed inside per-item code (`{index}`: the item index parameter).
ITEM_RESEEDS = (
    "{np}.random.seed({index})",
    "{np}.random.seed({info}().id)",
    "{random}.seed({index} + 1)",
    "torch.manual_seed({index})",
    "{np}.random.seed(torch.initial_seed() % 2**32)",
)


@dataclass(frozen=True)
class Rng:
    """An RNG object of a Dataset: where it is created and how per-item code draws from it."""

    kind: str
    #: "init", "class", or "module".
    site: str
    #: The attribute (or module variable) name.
    name: str
    seed: str


@st.composite
def rngs(draw: st.DrawFn, *, module_names: tuple[str, ...] = ("RNG", "rng")) -> Rng:
    """Draw an RNG object: its kind, where it lives and its seed argument."""
    kind = draw(st.sampled_from(sorted(RNG_KINDS)))
    site = draw(st.sampled_from(["init", "class", "module"]))
    if site == "module":
        name = draw(st.sampled_from(module_names))
    else:
        name = draw(st.sampled_from(["rng", "generator", "_rng", "random_state"]))
    seed = draw(st.sampled_from(["", "0", "seed", "1234", "None"]))
    if site != "init" and seed == "seed":
        seed = "7"
    return Rng(kind, site, name, seed)


def construct(rng: Rng, n: Names) -> str:
    template = RNG_KINDS[rng.kind][0]
    return template.format(np=n.np, random=n.random, seed=rng.seed, seed_or_zero=rng.seed or "0")


def reference(rng: Rng, class_name: str, via_class: bool) -> str:
    if rng.site == "module":
        return rng.name
    if rng.site == "class" and via_class:
        return f"{class_name}.{rng.name}"
    return f"self.{rng.name}"


# --- Datasets ---


@dataclass(frozen=True)
class DatasetCode:
    """A generated Dataset class and the module-level code it needs."""

    name: str
    code: str
    module_code: str
    iterable: bool


@st.composite
def datasets(draw: st.DrawFn, n: Names, name: str) -> DatasetCode:
    """Draw a Dataset class that uses randomness in some of the ways the rules look for."""
    iterable = draw(st.booleans()) if draw(st.integers(0, 3)) == 0 else False
    own_rngs = draw(st.lists(rngs(), max_size=2, unique_by=lambda rng: rng.name))
    module_code = "".join(
        f"{rng.name} = {construct(rng, n)}\n" for rng in own_rngs if rng.site == "module"
    )
    class_lines = [f"{rng.name} = {construct(rng, n)}" for rng in own_rngs if rng.site == "class"]
    init_lines = ["self.items = list(items)"]
    init_lines += [
        f"self.{rng.name} = {construct(rng, n)}" for rng in own_rngs if rng.site == "init"
    ]
    if draw(st.booleans()):
        init_lines.append(f"self.offset = {n.np}.random.rand()")  # randomness only in __init__
    index = "index" if not iterable else "position"
    item_lines: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        choice = draw(st.integers(0, 9))
        if choice < 4 and own_rngs:
            rng = draw(st.sampled_from(own_rngs))
            template = draw(st.sampled_from(RNG_KINDS[rng.kind][1]))
            target = reference(rng, name, draw(st.booleans()))
            item_lines.append(f"value = {template.format(rng=target)}")
        elif choice < 7:
            template = draw(st.sampled_from(GLOBAL_DRAWS))
            item_lines.append(f"value = {template.format(np=n.np, random=n.random)}")
        elif choice < 9:
            template = draw(st.sampled_from(ITEM_RESEEDS))
            item_lines.append(
                template.format(np=n.np, random=n.random, info=n.worker_info, index=index)
            )
        else:
            item_lines += [
                f"info = {n.worker_info}()",
                "if info is not None:",
                "    value = info.id",
            ]
    if draw(st.booleans()):
        item_lines.append(f"value = self.helper({index})")
        helper = ["def helper(self, index):"]
        from_rng = draw(st.booleans())
        if own_rngs and from_rng:
            rng = own_rngs[0]
            template = RNG_KINDS[rng.kind][1][0]
            helper.append(f"    return {template.format(rng=reference(rng, name, False))}")
        else:
            helper.append(f"    return {n.np}.random.rand() + index")
    else:
        helper = []
    body = [f"class {name}({n.iterable_dataset if iterable else n.dataset}):"]
    body += [f"    {line}" for line in class_lines]
    body += ["    def __init__(self, items, seed=0):"]
    body += [f"        {line}" for line in init_lines]
    if iterable:
        body += ["    def __iter__(self):", "        for position in range(len(self.items)):"]
        body += [f"            {line}" for line in item_lines]
        body += ["            yield self.items[position]"]
    else:
        body += ["    def __len__(self):", "        return len(self.items)"]
        body += ["    def __getitem__(self, index):"]
        body += [f"        {line}" for line in item_lines]
        body += ["        return self.items[index]"]
    body += [f"    {line}" for line in helper]
    return DatasetCode(name, "\n".join(body) + "\n", module_code, iterable)


# --- worker_init_fn ---

WORKER_INIT_BODIES = (
    "{np}.random.seed({param})",
    "{np}.random.seed(42 + {param})",
    "{np}.random.seed({np}.random.get_state()[1][0] + {param})",
    "{random}.seed({param})",
    "torch.manual_seed({param})",
    "{np}.random.seed(torch.initial_seed() % 2**32)",
    "{random}.seed(torch.initial_seed())",
    "{np}.random.seed({info}().seed % 2**32)",
    "torch.set_num_threads(1)",
    "pass",
)


@dataclass(frozen=True)
class InitFunction:
    """A module-level worker_init_fn."""

    name: str
    code: str


@st.composite
def init_functions(draw: st.DrawFn, n: Names) -> InitFunction:
    """Draw a module-level worker_init_fn that seeds well, badly, or not at all."""
    name = draw(st.sampled_from(["seed_worker", "worker_init_fn", "init_worker"]))
    param = draw(st.sampled_from(["worker_id", "wid", "i"]))
    extra = draw(st.sampled_from(["", ", rank=0", ", seed=None"]))
    lines = draw(st.lists(st.sampled_from(WORKER_INIT_BODIES), min_size=1, max_size=3))
    body = "".join(
        "    " + line.format(np=n.np, random=n.random, param=param, info=n.worker_info) + "\n"
        for line in lines
    )
    return InitFunction(name, f"def {name}({param}{extra}):\n{body}")


# --- DataLoader calls ---


@dataclass(frozen=True)
class LoaderCode:
    """Code that builds DataLoaders; `defines` is module-level code it needs first."""

    code: str
    defines: str


@st.composite
def loader_sites(draw: st.DrawFn, n: Names, dataset: str, init: InitFunction | None) -> LoaderCode:
    """Draw code that builds a DataLoader over `dataset` with random argument shapes."""
    in_function = draw(st.booleans())
    local_defs: list[str] = []
    defines = ""
    # worker_init_fn
    wif_kind = draw(
        st.sampled_from(["absent", "none", "named", "lambda", "lambda_local", "nested", "partial"])
    )
    if wif_kind == "named" and init is None:
        wif_kind = "lambda"
    if wif_kind == "nested" and not in_function:
        wif_kind = "lambda"
    wif: str | None = None
    if wif_kind == "none":
        wif = "None"
    elif wif_kind == "named":
        assert init is not None
        wif = init.name
    elif wif_kind == "lambda":
        wif = f"lambda worker_id: {n.np}.random.seed(worker_id)"
    elif wif_kind == "lambda_local":
        local_defs.append("base_seed = 1000")
        wif = f"lambda worker_id: {n.np}.random.seed(base_seed + worker_id)"
        if not in_function:
            wif = f"lambda worker_id: {n.random}.seed(worker_id * 2)"
    elif wif_kind == "nested":
        local_defs += [
            "def _init(worker_id):",
            f"    {n.np}.random.seed(worker_id)",
        ]
        wif = "_init"
    elif wif_kind == "partial":
        target = init.name if init is not None else "print"
        wif = f"{n.partial}({target}, rank=rank)" if init is not None else f"{n.partial}({target})"
        if init is not None and "rank" not in init.code.split("\n", 1)[0]:
            wif = f"{n.partial}({target})"
        local_defs.append("rank = 0")
    # num_workers
    workers_kind = draw(st.sampled_from(["absent", "zero", "literal", "variable", "attribute"]))
    workers = {
        "absent": None,
        "zero": "0",
        "literal": str(draw(st.sampled_from([1, 2, 4]))),
        "variable": "workers",
        "attribute": "args.workers",
    }[workers_kind]
    if workers == "workers":
        local_defs.append("workers = 4")
    if workers == "args.workers":
        defines += "class args:\n    workers = 2\n"
    keywords: list[tuple[str, str]] = []
    positional = [f"{dataset}(range(8))"]
    style = draw(st.sampled_from(["keywords", "positional", "kwargs_dict", "kwargs_literal"]))
    if style == "positional":
        # dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn,
        # pin_memory, drop_last, timeout, worker_init_fn
        values = ["4", "True", "None", "None", workers or "0", "None", "False", "False", "0"]
        count = draw(st.integers(1, len(values)))
        positional += values[:count]
        if count == len(values) and wif is not None and draw(st.booleans()):
            positional.append(wif)
            wif = None
        if count < 5 and workers is not None:
            keywords.append(("num_workers", workers))
    elif workers is not None:
        keywords.append(("num_workers", workers))
    if wif is not None:
        keywords.append(("worker_init_fn", wif))
    for name, values in (
        ("shuffle", ["True", "False"]),
        ("persistent_workers", ["True", "False"]),
        ("generator", ["g"]),
        ("batch_size", ["8"]),
    ):
        if (style != "positional" or name not in ("shuffle", "batch_size")) and draw(st.booleans()):
            keywords.append((name, draw(st.sampled_from(values))))
    if any(name == "generator" for name, _ in keywords):
        local_defs += ["g = torch.Generator()", "g.manual_seed(0)"]
    arguments = list(positional)
    if style == "kwargs_dict":
        local_defs.append(
            "options = dict(" + ", ".join(f"{key}={value}" for key, value in keywords) + ")"
        )
        arguments.append("**options")
    elif style == "kwargs_literal":
        local_defs.append(
            "options = {" + ", ".join(f"{key!r}: {value}" for key, value in keywords) + "}"
        )
        arguments.append("**options")
    else:
        arguments += [f"{key}={value}" for key, value in keywords]
    if draw(st.integers(0, 5)) == 0:
        arguments.append("**extra")  # unknown keywords
        local_defs.append("extra = load_config()")
    call = f"{n.loader}({', '.join(arguments)})"
    statements = [*local_defs, f"loader = {call}"]
    if draw(st.booleans()):
        statements += ["for epoch in range(2):", "    for batch in loader:", "        pass"]
    if in_function:
        name = draw(st.sampled_from(["main", "train", "build"]))
        code = f"def {name}():\n" + textwrap.indent("\n".join(statements), "    ") + "\n"
        if draw(st.booleans()):
            code += f"\n\nif __name__ == '__main__':\n    {name}()\n"
    else:
        code = "\n".join(statements) + "\n"
    return LoaderCode(code, defines)


# --- whole programs ---


@dataclass(frozen=True)
class Parts:
    """The pieces of one generated program."""

    names: Names
    datasets: tuple[DatasetCode, ...]
    init: InitFunction | None
    loaders: tuple[LoaderCode, ...]


@st.composite
def parts(draw: st.DrawFn) -> Parts:
    """Draw the pieces of a program (see the module docstring)."""
    n = draw(names())
    count = draw(st.integers(1, 2))
    classes = tuple(draw(datasets(n, name)) for name in ["Augmented", "Noisy"][:count])
    init = draw(st.none() | init_functions(n))
    loaders = tuple(
        draw(loader_sites(n, draw(st.sampled_from(classes)).name, init))
        for _ in range(draw(st.integers(1, 2)))
    )
    return Parts(n, classes, init, loaders)


def _module(*blocks: str) -> str:
    return "\n\n".join(block.strip("\n") for block in blocks if block.strip()) + "\n"


HEADERS = (
    "",
    "#!/usr/bin/env python\n",
    "# -*- coding: utf-8 -*-\n# Données bruitées: ½ °C\n",
    "# -*- coding: latin-1 -*-\n# Données bruitées: ½ °C\n",
    # An en dash: in cp1252, not in latin-1.
    "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n# « bruit » \u2013\n",
    '"""Augmentations aléatoires."""\n',
)


@st.composite
def dressed(draw: st.DrawFn, text: str) -> str:
    """Draw a header (shebang, coding cookie, non-ASCII), indentation and line endings."""
    text = draw(st.sampled_from(HEADERS)) + text
    if draw(st.integers(0, 3)) == 0:
        text = re.sub(r"(?m)^((?:    )+)", lambda match: "\t" * (len(match.group(1)) // 4), text)
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    return text.replace("\n", newline)


@st.composite
def program(draw: st.DrawFn) -> str:
    """Draw one module: imports, Datasets, worker_init_fn and DataLoader calls."""
    p = draw(parts())
    text = _module(
        "\n".join(p.names.imports),
        *(dataset.module_code for dataset in p.datasets),
        *(loader.defines for loader in p.loaders),
        *(dataset.code for dataset in p.datasets),
        p.init.code if p.init else "",
        *(loader.code for loader in p.loaders),
    )
    return draw(dressed(text))


@st.composite
def project(draw: st.DrawFn) -> dict[str, str]:
    """Draw a program spread over `samples.py` (Datasets) and `train.py` (DataLoaders).

    The worker_init_fn lives in either file; train.py imports what it needs from samples.py
    by name, by alias or through the module.
    """
    p = draw(parts())
    imports = "\n".join(p.names.imports)
    init_in_data = p.init is not None and draw(st.booleans())
    dataset_names = [dataset.name for dataset in p.datasets]
    style = draw(st.sampled_from(["from", "alias", "module"]))
    if style == "from":
        shared = dataset_names + ([p.init.name] if init_in_data and p.init else [])
        data_import = f"from samples import {', '.join(shared)}"
        rename: dict[str, str] = {}
    elif style == "alias":
        shared = dataset_names + ([p.init.name] if init_in_data and p.init else [])
        data_import = "from samples import " + ", ".join(f"{name} as My{name}" for name in shared)
        rename = {name: f"My{name}" for name in shared}
    else:
        data_import = "import samples"
        shared = dataset_names + ([p.init.name] if init_in_data and p.init else [])
        rename = {name: f"samples.{name}" for name in shared}
    loaders = [loader.code for loader in p.loaders]
    for old, new in rename.items():
        loaders = [_rename(code, old, new) for code in loaders]
    samples_py = _module(
        imports,
        *(dataset.module_code for dataset in p.datasets),
        *(dataset.code for dataset in p.datasets),
        p.init.code if init_in_data and p.init else "",
    )
    train_py = _module(
        imports + "\n" + data_import,
        *(loader.defines for loader in p.loaders),
        p.init.code if p.init and not init_in_data else "",
        *loaders,
    )
    return {"samples.py": draw(dressed(samples_py)), "train.py": draw(dressed(train_py))}


def _rename(code: str, old: str, new: str) -> str:
    """Replace the name `old` by `new` (whole words, not attributes)."""
    return re.sub(rf"(?<![\w.]){re.escape(old)}\b(?!\s*=[^=])", new, code)
