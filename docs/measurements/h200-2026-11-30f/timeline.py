import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/evidence/*/records/*/run-1/calls.json')):
    c=json.load(open(f))
    if len(c)<15: continue
    base=None; rows=[]
    for x in c:
        s=x['phases']['steps']; rep=x['worker']['clock_ns']['replying']/1e6
        hello=rep - s['worker_replying']
        ab={k:hello+v for k,v in s.items()}
        if base is None: base=ab['spawned']
        rows.append((x['call'],x['phases'].get('paired_with'),round(ab['spawned']-base),round(ab['hello']-base),round(ab['warmed']-base),round(ab['timed']-base),round(ab['closed']-base)))
    print(f.split('/')[-5]); 
    for r in rows: print('  call %2d pair %-4s spawned %6d hello %6d warmed %6d timed %6d closed %6d'%r)
