# Sourced by the device call scripts (in_graph_call.sh, headline_call.sh), with $n the call's
# number: the carried wheels installed and on the path, and the GPU's clocks noted in
# $OUT/call$n-machine.txt (which the calling script appends to). The wheels are installed again
# only when the carried set differs from the one installed last (a call that sources this twice,
# its own steps and then in_graph_call.sh, or a later call on a warm machine, installs nothing).
wheels=$(ls .whl/*.whl 2>/dev/null)
if [ "$wheels" != "$(cat /tmp/site/.kg-wheels 2>/dev/null)" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null \
    && echo "$wheels" > /tmp/site/.kg-wheels
fi
export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/call$n-machine.txt" 2>&1
# the files this call runs, by content: the machine's .git can lag them (scripts/device/tree_id.sh);
# here `bash scripts/device/tree_id.sh COMMIT` gives the same id for the commit they are
echo "files $(bash "$(dirname "${BASH_SOURCE[0]}")/tree_id.sh" 2>&1)" >> "$OUT/call$n-machine.txt"
