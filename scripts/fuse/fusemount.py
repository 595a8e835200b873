"""Mounts a FUSE file system that the calling process serves on the /dev/fuse descriptor returned:
as root with mount(2), as any other user through the setuid fusermount3 (Debian package fuse3),
which mounts and hands the descriptor back over a socket (libfuse's protocol)."""
import ctypes, errno, os, socket, struct, subprocess


def mount(mountpoint, name):
    """The /dev/fuse descriptor of a new FUSE mount at `mountpoint`, its file system called `name`."""
    if os.geteuid() == 0:
        fd = os.open('/dev/fuse', os.O_RDWR)
        opts = 'fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other' % fd
        libc = ctypes.CDLL(None, use_errno=True)
        # MS_NOSUID | MS_NODEV
        if libc.mount(name.encode(), mountpoint.encode(), b'fuse.' + name.encode(), 6, opts.encode()) != 0:
            e = ctypes.get_errno()
            raise OSError(e, 'mount fuse on %s: %s' % (mountpoint, os.strerror(e)))
        return fd
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    env = dict(os.environ, _FUSE_COMMFD=str(theirs.fileno()))
    try:
        done = subprocess.run(['fusermount3', '-o', 'fsname=%s,subtype=%s' % (name, name), '--', mountpoint],
                              env=env, pass_fds=[theirs.fileno()], stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        raise OSError(errno.ENOENT, 'fusermount3 is not installed (Debian package fuse3)')
    theirs.close()
    if done.returncode != 0:
        raise OSError(errno.EPERM, 'fusermount3 could not mount %s: %s' % (mountpoint, done.stderr.strip()))
    _, ancillary, _, _ = ours.recvmsg(1, socket.CMSG_LEN(struct.calcsize('i')))
    ours.close()
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            return struct.unpack('i', data[:struct.calcsize('i')])[0]
    raise OSError(errno.EIO, 'fusermount3 mounted %s but sent no file descriptor' % mountpoint)


def unmount(mountpoint):
    """Detaches the mount, whoever made it."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.umount2(mountpoint.encode(), 2)  # MNT_DETACH
    else:
        subprocess.run(['fusermount3', '-u', '-z', '--', mountpoint], stderr=subprocess.DEVNULL)
