#!/usr/bin/env bash
# The own environment of benchmarks/bench_fs_linear_peers.py: the project (editable) plus the
# peers it is measured against -- abess (L0 logistic regression) and skglm (MCP logistic
# regression). The peers are never project dependencies: they live only in this venv, which is
# git-ignored (a .gitignore inside it).
#
#     bash benchmarks/bench_fs_linear_peers_env.sh       # once; then
#     benchmarks/.venv-peers/bin/python benchmarks/bench_fs_linear_peers.py
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-peers"
py="${PY:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
printf '*\n' > "$venv/.gitignore"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e "$here/.." "abess==0.4.11" "skglm==0.5"
"$venv/bin/python" -c "import abess, skglm, sparsekm; print('peers env ready:', abess.__version__, skglm.__version__)"
