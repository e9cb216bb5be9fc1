"""Hand count of a watch straight from history.sqlite3 (no Retryscope code), for comparison
with `watch show`, `report --format json` and `whatif`."""
import sqlite3, sys, math, re, glob
db = sys.argv[1]; wid = sys.argv[2]
c = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
w = c.execute("select every_ms, state, count, until_unix_ms, start_unix_ms from watches where id=?", (wid,)).fetchone()
print("watch", wid, "every_ms", w[0], "state", w[1])
slots = c.execute("select count(*), sum(run_id is not null), sum(missed is not null) from watch_slots where watch_id=?", (wid,)).fetchone()
print("slots", slots[0], "with a run", slots[1], "missed", slots[2])
for kind, n in c.execute("select missed, count(*) from watch_slots where watch_id=? and missed is not null group by missed", (wid,)):
    print("  missed", kind, n)
runs = c.execute("select id, started_unix_ms, outcome, attempts from runs where watch_id=? order by started_unix_ms, id", (wid,)).fetchall()
print("runs", len(runs))
by = {}
for r in runs: by[r[2]] = by.get(r[2], 0) + 1
print("  by outcome", dict(sorted(by.items(), key=lambda kv: str(kv[0]))))
ok = by.get('succeeded', 0); bad = sum(by.get(k, 0) for k in ('gave_up', 'stopped', 'deadline', 'error'))
n = ok + bad; p = ok / n; z = 1.959963984540054
den = 1 + z*z/n; mid = (p + z*z/(2*n)) / den; half = z*math.sqrt(p*(1-p)/n + z*z/(4*n*n)) / den
print(f"success rate {ok}/{n} = {100*p:.2f} %  (Wilson 95 %: {100*(mid-half):.2f}–{100*(mid+half):.2f} %)")
att = c.execute("select count(*) from attempts a join runs r on r.id=a.run_id where r.watch_id=?", (wid,)).fetchone()[0]
print("attempts in all", att)
tts = []
for rid, in c.execute("select id from runs where watch_id=? and outcome='succeeded'", (wid,)):
    last = c.execute("select offset_ms, done_ms from attempts where run_id=? order by number desc limit 1", (rid,)).fetchone()
    tts.append(last[0] + (last[1] or 0))
tts.sort()
rank = lambda q: tts[max(0, math.ceil(q*len(tts)) - 1)]
print(f"time to success p50 {rank(.5):.1f} ms  p95 {rank(.95):.1f} ms  p99 {rank(.99):.1f} ms  max {tts[-1]:.1f} ms")
# streaks of failed runs (cancelled/unfinished neither break nor join)
best = cur = 0; streaks = 0
for r in runs:
    if r[2] == 'succeeded':
        if cur: streaks += 1
        cur = 0
    elif r[2] in ('gave_up', 'stopped', 'deadline', 'error'):
        cur += 1; best = max(best, cur)
if cur: streaks += 1
print("outage streaks", streaks, "longest", best, "runs")
