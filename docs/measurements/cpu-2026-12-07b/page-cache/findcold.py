# find large .so files in /usr/lib/x86_64-linux-gnu with many non-resident pages (uses mincore via ctypes; read-only, maps only)
import os, mmap, ctypes
libc=ctypes.CDLL(None, use_errno=True)
libc.mincore.argtypes=[ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
libc.mmap.restype=ctypes.c_void_p
libc.mmap.argtypes=[ctypes.c_void_p,ctypes.c_size_t,ctypes.c_int,ctypes.c_int,ctypes.c_int,ctypes.c_long]
libc.munmap.argtypes=[ctypes.c_void_p,ctypes.c_size_t]
res=[]
d='/usr/lib/x86_64-linux-gnu'
for n in os.listdir(d):
    p=os.path.join(d,n)
    if os.path.islink(p) or not os.path.isfile(p): continue
    sz=os.path.getsize(p)
    if sz<4<<20: continue
    fd=os.open(p,os.O_RDONLY); m=libc.mmap(None,sz,1,1,fd,0)
    np_=(sz+4095)//4096; v=(ctypes.c_ubyte*np_)()
    libc.mincore(m,sz,v); r=sum(x&1 for x in v); libc.munmap(m,sz); os.close(fd)
    res.append((np_-r,np_,p))
res.sort(reverse=True)
for x in res[:8]: print(x)
print("total nonresident pages among big files:", sum(x[0] for x in res), "of", sum(x[1] for x in res))
