#!/usr/bin/env bash
# Build the virtual environments in which bench/bench_compare.py runs the 2020 fastsparse release (0.0.5, PyPI).
#
#     bash bench/setup_fastsparse_005.sh [VENV_ROOT]        # default VENV_ROOT: /work/venvs
#
# fastsparse 0.0.5's metadata asks only for `fastai` (unpinned; Requires-Python >=3.6; classifiers 3.6-3.8), so it
# is benchmarked twice, each in its own environment:
#
#   VENV_ROOT/fastsparse005          the stack of its release day (wheel built 2020-11-24): Python 3.8 (pyenv),
#                                    torch 1.7.0, torchvision 0.8.1, fastai 2.1.7 (2020-11-23), fastcore 1.3.7
#                                    (2020-11-22), fastprogress 1.0.0 and the numpy, pandas, scipy, scikit-learn and
#                                    matplotlib of that month.
#                                    fastai is installed without its `spacy` requirement: only fastai.text imports it.
#   VENV_ROOT/fastsparse005-current  Python 3.11 with this machine's torch and fastai (--system-site-packages), so
#                                    the two libraries are compared on identical torch and fastai. 0.0.5 installs
#                                    with --no-deps: its one requirement, fastai, is already there.
#
# Both need only PyPI. Re-running is safe: an environment that already imports fastsparse 0.0.5 is kept.
set -euo pipefail
ROOT="${1:-/work/venvs}"
mkdir -p "$ROOT"

ok() { [ -x "$1/bin/python" ] && (cd / && "$1/bin/python" -c "import fastsparse, fastai.basics; assert fastsparse.__version__ == '0.0.5'") >/dev/null 2>&1; }

# --- the 2020 stack -------------------------------------------------------------------------------------------
V="$ROOT/fastsparse005"
if ok "$V"; then echo "kept $V"; else
    PY38=""
    if command -v pyenv >/dev/null; then
        for v in $(pyenv versions --bare | grep -E '^3\.8(\.|$)' | sort -V -r); do PY38="$(pyenv root)/versions/$v/bin/python"; break; done
    fi
    [ -z "$PY38" ] && command -v python3.8 >/dev/null && PY38="$(command -v python3.8)"
    if [ -z "$PY38" ]; then
        echo "no Python 3.8 (pyenv install 3.8, or put python3.8 on PATH): skipping $V" >&2
    else
        rm -rf "$V"
        "$PY38" -m venv "$V"
        "$V/bin/pip" install -q --upgrade "pip<24.1"
        "$V/bin/pip" install -q --only-binary=:all: \
            torch==1.7.0 torchvision==0.8.1 fastcore==1.3.7 fastprogress==1.0.0 \
            numpy==1.19.5 pandas==1.1.5 scipy==1.5.4 scikit-learn==0.23.2 matplotlib==3.3.3 pillow==8.0.1 \
            pyyaml requests packaging
        "$V/bin/pip" install -q --no-deps fastai==2.1.7 fastsparse==0.0.5
        ok "$V" && echo "built $V" || { echo "$V does not import fastsparse 0.0.5" >&2; exit 1; }
    fi
fi

# --- today's torch and fastai ---------------------------------------------------------------------------------
V="$ROOT/fastsparse005-current"
if ok "$V"; then echo "kept $V"; else
    PY="${PYTHON:-python3}"
    rm -rf "$V"
    "$PY" -m venv --system-site-packages "$V"
    "$V/bin/pip" install -q --no-deps fastsparse==0.0.5
    ok "$V" && echo "built $V" || { echo "$V does not import fastsparse 0.0.5" >&2; exit 1; }
fi
