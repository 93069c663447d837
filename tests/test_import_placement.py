"""New imports go where an import sorter puts them (ruff's `I` rules, isort's defaults)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_cases import Case, discover_cases

from codemods.fixes.apply import apply_edits
from codemods.fixes.code_style import CodeStyle
from codemods.fixes.import_placement import first_party_modules
from codemods.types import AddImport, HoistFunction, Span

RUFF = [sys.executable, "-m", "ruff"]


def _ruff_available() -> bool:
    return subprocess.run([*RUFF, "--version"], capture_output=True, check=False).returncode == 0


needs_ruff = pytest.mark.skipif(not _ruff_available(), reason="needs ruff (the test extra)")


def _sorted_by_ruff(directory: Path, *extra: str) -> bool:
    """Return True if ruff finds the imports of every file under `directory` sorted."""
    result = subprocess.run(
        [*RUFF, "check", "--select", "I", "--isolated", "--no-cache", "--quiet", *extra, "."],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode == 0


CASES = [
    pytest.param(
        "import os\n\nimport numpy as np\n",
        [AddImport("random")],
        "import os\nimport random\n\nimport numpy as np\n",
        id="standard library into the standard library group",
    ),
    pytest.param(
        "import os\n\nimport numpy as np\n\nfrom mypkg import thing\n",
        [AddImport("torch")],
        "import os\n\nimport numpy as np\nimport torch\n\nfrom mypkg import thing\n",
        id="third party between standard library and first party",
    ),
    pytest.param(
        "import os\n\nfrom mypkg import thing\n",
        [AddImport("torch")],
        "import os\n\nimport torch\n\nfrom mypkg import thing\n",
        id="a missing third-party section is opened between the others",
    ),
    pytest.param(
        "import numpy as np\n",
        [AddImport("mypkg.seeding", obj="seed_all")],
        "import numpy as np\n\nfrom mypkg.seeding import seed_all\n",
        id="first party after third party",
    ),
    pytest.param(
        "import numpy as np\n\nfrom .models import Net\n",
        [AddImport("torch")],
        "import numpy as np\nimport torch\n\nfrom .models import Net\n",
        id="relative imports stay last",
    ),
    pytest.param(
        "import numpy as np\nfrom torch.utils.data import DataLoader\n",
        [AddImport("torch")],
        "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\n",
        id="import x before from x import y in a section",
    ),
    pytest.param(
        "x = 1\n",
        [AddImport("torch"), AddImport("random")],
        "import random\n\nimport torch\n\nx = 1\n",
        id="file with no imports",
    ),
    pytest.param(
        '"""Train a model."""\n',
        [AddImport("random")],
        '"""Train a model."""\n\nimport random\n',
        id="file with only a docstring",
    ),
    pytest.param(
        "from __future__ import annotations\n\nimport numpy as np\n",
        [AddImport("random")],
        "from __future__ import annotations\n\nimport random\n\nimport numpy as np\n",
        id="after from __future__",
    ),
    pytest.param(
        "import os\n\ntry:\n    import ujson as json\nexcept ImportError:\n    import json\n",
        [AddImport("random")],
        "import os\nimport random\n\ntry:\n    import ujson as json\nexcept ImportError:\n"
        "    import json\n",
        id="try/except ImportError blocks are left alone",
    ),
    pytest.param(
        "from typing import TYPE_CHECKING\n\nimport numpy as np\n\nif TYPE_CHECKING:\n"
        "    from torch import Tensor\n",
        [AddImport("torch")],
        "from typing import TYPE_CHECKING\n\nimport numpy as np\nimport torch\n\n"
        "if TYPE_CHECKING:\n    from torch import Tensor\n",
        id="if TYPE_CHECKING blocks are left alone",
    ),
    pytest.param(
        '"""Doc."""\n\n# Third party\nimport numpy as np\n',
        [AddImport("random")],
        '"""Doc."""\n\nimport random\n\n# Third party\nimport numpy as np\n',
        id="a comment above a section stays with it",
    ),
    pytest.param(
        "from torch.utils.data import DataLoader, Dataset\n",
        [
            AddImport("torch.utils.data", obj="get_worker_info"),
            AddImport("torch.utils.data", obj="IterableDataset"),
        ],
        "from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info\n",
        id="merged names in order by type",
    ),
    pytest.param(
        "from torch.utils.data import (\n    DataLoader,  # loads\n    Dataset,  # items\n)\n",
        [AddImport("torch.utils.data", obj="get_worker_info")],
        "from torch.utils.data import (\n    DataLoader,  # loads\n    Dataset,  # items\n"
        "    get_worker_info,\n)\n",
        id="merged names in a parenthesized import keep their comments",
    ),
    pytest.param(
        "import numpy as np\r\nimport torch\r\n",
        [AddImport("random")],
        "import random\r\n\r\nimport numpy as np\r\nimport torch\r\n",
        id="CRLF line endings",
    ),
]


@pytest.mark.parametrize(("before", "imports", "expected"), CASES)
def test_new_imports_are_placed_as_a_sorter_would(
    before: str, imports: list[AddImport], expected: str, tmp_path: Path
) -> None:
    after = apply_edits(before, imports, style=CodeStyle(frozenset({"mypkg"})))
    assert after == expected
    if _ruff_available():
        (tmp_path / "mypkg").mkdir()
        (tmp_path / "mypkg" / "seeding.py").write_text("")
        (tmp_path / "module.py").write_bytes(after.encode())
        assert _sorted_by_ruff(tmp_path)


def test_first_party_modules_are_packages_and_modules_of_the_root_and_src(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "train.py").write_text("")
    (tmp_path / "src" / "core").mkdir(parents=True)
    (tmp_path / "README.md").write_text("")
    (tmp_path / ".git").mkdir()
    assert first_party_modules(tmp_path) == {"models", "train", "src", "core"}


FIXED_CASES = [case for case in discover_cases() if case.after.is_dir()]


@needs_ruff
@pytest.mark.parametrize("case", FIXED_CASES, ids=[case.id for case in FIXED_CASES])
def test_fixed_files_stay_sorted(case: Case) -> None:
    """A fixture whose files ruff finds sorted before the fix, it finds sorted after it."""
    # ruff runs in before/ and after/, each its own project root (first party: its modules),
    # as each is for workerseed.
    if not _sorted_by_ruff(case.before):
        pytest.skip("the imports are not sorted before the fix either")
    assert _sorted_by_ruff(case.after)


def test_a_function_hoisted_after_the_imports_gets_two_blank_lines() -> None:
    source = "import os\n\nseed = lambda w: os.getpid() + w\n"
    span = _span("lambda w: os.getpid() + w", source)
    edit = HoistFunction(span, "seed", replaces_assignment=True)
    assert apply_edits(source, [edit]) == (
        "import os\n\n\ndef seed(w):\n    return os.getpid() + w\n"
    )


def test_a_function_hoisted_after_a_docstring_keeps_its_spacing() -> None:
    source = '"""Doc."""\n\nseed = lambda w: w\n'
    span = _span("lambda w: w", source)
    edit = HoistFunction(span, "seed", replaces_assignment=True)
    assert apply_edits(source, [edit]) == '"""Doc."""\n\ndef seed(w):\n    return w\n'


def _span(text: str, source: str) -> Span:
    node = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Lambda) and ast.get_source_segment(source, node) == text
    )
    return Span(node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)
