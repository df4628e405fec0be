# The correlation, over the MNIST calls of each side of each bench of docs/measurements/h200-2026-12-01/,
# of the method's own time (ms) with its unexplained time and with the write and labels steps'
# offsets (timed less calibration). Run from the checkout: python3 <this file>.
import json,statistics as st,sys,glob
def corr(a,b):
    ma,mb=st.mean(a),st.mean(b); sa=sum((x-ma)**2 for x in a)**.5; sb=sum((y-mb)**2 for y in b)**.5
    return sum((x-ma)*(y-mb) for x,y in zip(a,b))/(sa*sb) if sa and sb else float('nan')
# The seven benches of docs/performance.md's correlation paragraph (not the interleaved one after).
FILES = ['docs/measurements/h200-2026-12-01/bench-runs3-36.json'] + [
    f'docs/measurements/h200-2026-12-01/calibration/bench-{name}.json'
    for name in ('2-busy0', '2-busy12', '2-busy3', '3-busy0', '3-touch1', '3-touch8')]
for f in FILES:
    j=json.load(open(f))
    for side in ('native','python'):
        runs=j['runs'].get(side) or []
        u=[];ms=[];wr=[];lab=[]
        for r in runs:
            for c in r['calls']:
                if c['dataset']!='mnist': continue
                ph=c.get('phases') or {}; t,cal=ph.get('timed'),ph.get('calibration')
                if not (isinstance(t,dict) and isinstance(cal,dict)): continue
                u.append(c['parent_ms']-c['overhead_ms']-c['ms']); ms.append(c['ms']); wr.append(t['write']-cal['write']); lab.append(t['labels']-cal['labels'])
        if len(u)>3: print("%-28s %-6s n=%d corr(ms,u)=%+.2f corr(ms,write)=%+.2f corr(ms,labels)=%+.2f  ms range %.2f-%.2f"%(f.split('/')[-1],side,len(u),corr(ms,u),corr(ms,wr),corr(ms,lab),min(ms),max(ms)))
