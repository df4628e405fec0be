import re, os, sys
files=set()
for line in open('/tmp/pcm/strace.out'):
    m=re.search(r'(openat|open|execve)\((?:AT_FDCWD, |\d+, )?"([^"]+)"', line)
    if not m: continue
    if re.search(r'= -1', line): continue
    p=m.group(2)
    if m.group(1)=='openat' and not p.startswith('/'):
        continue
    try:
        rp=os.path.realpath(p)
        import stat
        st=os.stat(rp)
        if stat.S_ISREG(st.st_mode): files.add(rp)
    except OSError: pass
files=sorted(files)
tot=sum(os.stat(f).st_size for f in files)
usr=[f for f in files if f.startswith('/usr/')]
print("count",len(files),"bytes",tot, "under /usr:",len(usr), sum(os.stat(f).st_size for f in usr))
for f in files:
    if not f.startswith('/usr/'): print(" non-usr:",f)
open('/tmp/pcm/needed.txt','w').write('\n'.join(usr)+'\n')
big=sorted(usr,key=lambda f:-os.stat(f).st_size)[:10]
for f in big: print(os.stat(f).st_size, f)
