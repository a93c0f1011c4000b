# call 10 (after the closing call): the two graph scripts after their shared helper calls_on_own_inputs
# (the text of the commit that adds this file); both ran, outputs checked: 18.83 and 18.80 us a call at B=8
python3 scripts/device/trace_timeline.py docs/diagnostics/h200-session13-20261201/v_staged_only.json --batches 8 --replays 1
python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session13-20261201/v_staged_only.json --batches 8
