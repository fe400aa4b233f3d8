#!/bin/sh
# The shape rules' files (issue 37): every rule in the family file docs/shape-rules.md names,
# no file over 1,500 lines, no loop between family files (tests/shape-families.py).
. tests/cli/lib.sh
check "shape families" 0 python3 tests/shape-families.py
finish
