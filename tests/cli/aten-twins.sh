#!/bin/sh
# The ATen composites and aliases torch.export's training IR keeps (aten.type_as, aten.rms_norm,
# aten.cross_entropy_loss, aten.arccos, ...), checked against values torch recorded for the
# operator each stands for (tests/aten_twins.py says how): every rewritten call inferred
# exactly, and at least as many checked as when this test was written.
. tests/cli/lib.sh
mkdir -p "$T/m"
xz -dc tests/data/models.tar.xz | tar -x -C "$T/m"
check "twins" 0 python3 tests/aten_twins.py --cgscope "$CGSCOPE" --models "$T/m/models" --min 1531
sed 's/^/  | /' "$out" | grep -v '^  |   ' | head -42
has "aliases" "$out" "aten.arccos.default"
has "composites" "$out" "aten.cross_entropy_loss.default"
finish
