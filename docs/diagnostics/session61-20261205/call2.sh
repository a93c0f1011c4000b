#!/usr/bin/env bash
# Sixty-first session, call 2: which of the layer's tensors (its query's values, its query's buffer,
# its out and lse buffers) makes the siblings' merge slower than on its own inputs. Run from the
# repository root on the device, carrying .whl:
#   bash docs/diagnostics/session61-20261205/call2.sh
n=2; source scripts/device/call_env.sh
timeout 300 python3 scripts/device/layer_inputs.py docs/diagnostics/session61-20261205/variants_inputs.json \
  --batches 1,8 --repeats 2 > "$OUT/call2-layer_inputs.log" 2>&1
echo "rc $?" >> "$OUT/call2-machine.txt"; cat "$OUT/call2-machine.txt"
python3 -c "
import json
for r in json.load(open('$OUT/layer_inputs.json')):
    print(r['rep'], r['variant'], r['workload'], ' '.join(f'{k}={v}' for k, v in r.items() if k not in ('rep','variant','workload') and 'iqr' not in k))
" 2>&1 || tail -20 "$OUT/call2-layer_inputs.log"
