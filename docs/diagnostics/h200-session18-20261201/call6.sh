# call 6: the new verification shape (b5_invalid: B=5, 11 splits for the siblings' merge) through
# the real worker: `engine eval` of three siblings genomes (scorer; scorer with staged rows; FP8
# lockstep), the scorer with the separate merge, and the Triton template's default.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
S='"MMA":"wgmma","PIPELINE":"seesaw","SCHEDULE":"scorer","STAGES":2,"Q_LOAD":"tma","TOPK_TILE":32,"GATHER_LANES":8,"PARTIALS":"bf16","PDL":true'
run() { echo "== $1"; timeout 150 python3 -m engine eval "$2" --device cuda ${3:+--genome "$3"} > /tmp/e.json 2>&1; echo "rc $?";
        python3 - <<'PY'
import json, re
t = open('/tmp/e.json').read()
try:
    r = json.loads(t[t.index('{'):])
except Exception:
    print(t[-1500:]); raise SystemExit
print(r.get('status'), r.get('error'), [(v.get('shape'), v.get('out_rel_l2')) for v in r.get('verify', [])])
print({w['name']: w['median_us'] for w in r.get('workloads') or []})
PY
        cat /tmp/e.json >> $OUT/call6-eval.log; }
run sib templates/sparse_mla.cu.j2 "{$S,\"COMBINE\":\"siblings\"}"
run sib-staged templates/sparse_mla.cu.j2 "{$S,\"COMBINE\":\"siblings\",\"ROW_STORE\":\"staged\"}"
run fp8-lockstep-siblings templates/sparse_mla.cu.j2 '{"MMA":"wgmma","PIPELINE":"seesaw","STAGES":2,"TOPK_TILE":32,"KV_FORMAT":"fp8_656","PARTIALS":"bf16","PDL":true,"COMBINE":"siblings"}'
run scorer-separate templates/sparse_mla.cu.j2 "{$S}"
run triton-default templates/sparse_mla.triton.j2
