#!/usr/bin/env python3
"""penemu - emulate a Wacom pen tablet as a Linux evdev node served over FUSE.

Linux without uinput cannot create a kernel input device, but a FUSE file
can answer read()/poll()/ioctl() like /dev/input/eventN does.  The stock
xf86-input-wacom driver opens that file and sees an ordinary Wacom pen
(vendor 0x056a, protocol 5: ABS_X/Y/PRESSURE/DISTANCE/TILT_X/TILT_Y/MISC,
BTN_TOOL_PEN, BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2, MSC_SERIAL).

It speaks the FUSE kernel protocol directly on /dev/fuse (standard library
only).  As root it mounts with mount(2); as any other user, through the
setuid fusermount3 (Debian package fuse3), which hands back the /dev/fuse fd.  A unix socket takes JSON lines from `pen`:
  {"op":"frame", "prox":true, "x":px, "y":px, "pressure":0..1,
   "tilt":[deg,deg], "buttons":[b1,b2]}      -> one evdev report
  {"op":"sync", "timeout":2}                 -> reply once X has read it all
  {"op":"state"}                             -> current state
  {"op":"fresh"}                             -> the pen as a newly plugged device
Every request gets exactly one JSON line back.
"""
import argparse, errno, json, math, os, select, signal, socket, struct, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuse'))
import fusemount

# ---- evdev constants --------------------------------------------------------
EV_SYN, EV_KEY, EV_ABS, EV_MSC = 0, 1, 3, 4
SYN_REPORT, MSC_SERIAL = 0, 0
BTN_TOOL_PEN, BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2 = 0x140, 0x14a, 0x14b, 0x14c
ABS_X, ABS_Y, ABS_PRESSURE, ABS_DISTANCE = 0x00, 0x01, 0x18, 0x19
ABS_TILT_X, ABS_TILT_Y, ABS_MISC = 0x1a, 0x1b, 0x28
INPUT_PROP_DIRECT = 1
BUS_USB, WACOM_VENDOR, PRODUCT = 0x03, 0x056a, 0x0350   # Cintiq Pro 16
TOOL_ID, TOOL_SERIAL = 0x862, 0x1e2c0fa5                # Pro Pen 2 id, any serial
P_MAX, D_MAX, TILT_RES = 8191, 63, 57                   # like the kernel's wacom driver
KEYS = (BTN_TOOL_PEN, BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2)
EVSZ = 24                                               # struct input_event on 64-bit

# ---- FUSE protocol (include/uapi/linux/fuse.h) --------------------------------
LOOKUP, FORGET, GETATTR, OPEN, READ, RELEASE = 1, 2, 3, 14, 15, 18
GETXATTR, LISTXATTR, FLUSH, INIT, OPENDIR, READDIR = 22, 23, 25, 26, 27, 28
RELEASEDIR, ACCESS, INTERRUPT, DESTROY, IOCTL, POLL, BATCH_FORGET = 29, 34, 36, 38, 39, 40, 42
NO_REPLY = (FORGET, INTERRUPT, BATCH_FORGET)
IN_HDR = struct.Struct('<IIQQIIIHH')    # len opcode unique nodeid uid gid pid extlen pad
OUT_HDR = struct.Struct('<IiQ')         # len error unique
FOPEN_DIRECT_IO, FOPEN_NONSEEKABLE = 1, 4
FUSE_POLL_SCHEDULE_NOTIFY, FUSE_NOTIFY_POLL = 1, 1
POLLIN, POLLOUT, POLLRDNORM, POLLWRNORM = 0x1, 0x4, 0x40, 0x100
ROOT, NODE = 1, 2
FILENAME = 'event'


def bits(nums, nbytes):
    b = bytearray(nbytes)
    for n in nums:
        if n // 8 < nbytes:
            b[n // 8] |= 1 << (n % 8)
    return bytes(b)


class Pen:
    """Pen state and its translation to evdev reports."""

    def __init__(self, width, height, scale):
        self.w, self.h, self.scale = width, height, scale
        self.xmax, self.ymax = width * scale - 1, height * scale - 1
        self.abs = {ABS_X: 0, ABS_Y: 0, ABS_PRESSURE: 0, ABS_DISTANCE: 0,
                    ABS_TILT_X: 0, ABS_TILT_Y: 0, ABS_MISC: 0}
        self.keys = {k: 0 for k in KEYS}
        # screen-space view of the state, reported back to clients
        self.view = {'prox': False, 'x': 0.0, 'y': 0.0, 'pressure': 0.0,
                     'tilt': [0.0, 0.0], 'buttons': [False, False]}

    def absinfo(self, code):    # value min max fuzz flat resolution
        lim = {ABS_X: (0, self.xmax, 0, 100), ABS_Y: (0, self.ymax, 0, 100),
               ABS_PRESSURE: (0, P_MAX, 0, 0), ABS_DISTANCE: (0, D_MAX, 0, 0),
               ABS_TILT_X: (-64, 63, 0, TILT_RES), ABS_TILT_Y: (-64, 63, 0, TILT_RES),
               ABS_MISC: (0, 0, 0, 0)}[code]
        return struct.pack('<6i', self.abs[code], lim[0], lim[1], 0, lim[2], lim[3])

    def update(self, req):
        """Apply a frame request; return the list of (type, code, value) events."""
        v = self.view
        for k in ('x', 'y', 'pressure'):
            if k in req:
                v[k] = float(req[k])
        if 'tilt' in req:
            v['tilt'] = [float(t) for t in req['tilt']]
        if 'buttons' in req:
            v['buttons'] = [bool(b) for b in req['buttons']][:2] + [False] * (2 - len(req['buttons']))
        if 'prox' in req:
            v['prox'] = bool(req['prox'])
        v['pressure'] = min(1.0, max(0.0, v['pressure']))
        if not v['prox']:     # out of proximity the pen reports nothing but its last x/y
            v['pressure'], v['buttons'], v['tilt'] = 0.0, [False, False], [0.0, 0.0]
        clamp = lambda n, lo, hi: max(lo, min(hi, int(round(n))))
        rad = lambda deg: clamp(math.radians(deg) * TILT_RES, -64, 63)
        if v['prox']:
            want_abs = {ABS_X: clamp(v['x'] * self.scale, 0, self.xmax),
                        ABS_Y: clamp(v['y'] * self.scale, 0, self.ymax),
                        ABS_PRESSURE: clamp(v['pressure'] * P_MAX, 0, P_MAX),
                        ABS_DISTANCE: 0 if v['pressure'] > 0 else 10,
                        ABS_TILT_X: rad(v['tilt'][0]), ABS_TILT_Y: rad(v['tilt'][1]),
                        ABS_MISC: TOOL_ID}
            want_keys = {BTN_TOOL_PEN: 1, BTN_TOUCH: int(v['pressure'] > 0),
                         BTN_STYLUS: int(v['buttons'][0]), BTN_STYLUS2: int(v['buttons'][1])}
        else:   # leaving proximity: the kernel resets everything but x/y
            want_abs = dict(self.abs)
            want_abs.update({ABS_PRESSURE: 0, ABS_DISTANCE: 0, ABS_TILT_X: 0, ABS_TILT_Y: 0, ABS_MISC: 0})
            want_keys = {k: 0 for k in KEYS}
        evs = []
        for code, val in want_abs.items():          # evdev drops unchanged values
            if self.abs[code] != val:
                evs.append((EV_ABS, code, val))
                self.abs[code] = val
        for code, val in want_keys.items():
            if self.keys[code] != val:
                evs.append((EV_KEY, code, val))
                self.keys[code] = val
        if not evs:
            return []
        return evs + [(EV_MSC, MSC_SERIAL, TOOL_SERIAL), (EV_SYN, SYN_REPORT, 0)]

    def fresh(self):
        """A newly plugged device: out of proximity, every key up and value zero, sent in full rather
        than only what changed, so a driver that reopens the file forgets what it read before."""
        self.update({'prox': False})
        self.abs[ABS_X] = self.abs[ABS_Y] = 0     # so the next report carries the position
        zero = (ABS_PRESSURE, ABS_DISTANCE, ABS_TILT_X, ABS_TILT_Y, ABS_MISC)
        return ([(EV_KEY, k, 0) for k in KEYS] + [(EV_ABS, c, 0) for c in zero]
                + [(EV_MSC, MSC_SERIAL, TOOL_SERIAL), (EV_SYN, SYN_REPORT, 0)])


class Emulator:
    def __init__(self, args):
        self.pen = Pen(args.width, args.height, args.scale)
        self.name = args.name.encode()
        self.mnt = args.mount
        self.files = {}          # fh -> {'buf': bytearray, 'kh': set(), 'parked': [unique,size]|None, 'nonblock'}
        self.next_fh = 1
        self.waiters = []        # (conn, deadline) waiting for the queues to drain
        self.clients = {}        # conn -> bytearray (partial input)
        self.reads = 0
        self.fd = fusemount.mount(self.mnt, 'penemu')
        if os.path.exists(args.socket):
            os.unlink(args.socket)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(args.socket)
        self.srv.listen(8)
        self.sockpath = args.socket

    # -- FUSE replies ----------------------------------------------------------
    def reply(self, unique, data=b'', err=0):
        try:
            os.write(self.fd, OUT_HDR.pack(OUT_HDR.size + len(data), -err, unique) + data)
        except OSError as e:     # ENOENT: request was interrupted meanwhile
            if e.errno not in (errno.ENOENT, errno.ENODEV):
                raise

    def attr(self, node):
        now = int(time.time())
        mode, nlink = (0o040755, 2) if node == ROOT else (0o100666, 1)
        return struct.pack('<QQQQQQIIIIIIIIII', node, 0, 0, now, now, now, 0, 0, 0,
                           mode, nlink, 0, 0, 0, 4096, 0)

    def handle(self, req):
        ln, op, unique, node, uid, gid, pid, _, _ = IN_HDR.unpack_from(req)
        body = req[IN_HDR.size:ln]
        if op in NO_REPLY:
            if op == INTERRUPT:
                target, = struct.unpack_from('<Q', body)
                for f in self.files.values():
                    if f['parked'] and f['parked'][0] == target:
                        f['parked'] = None
                        self.reply(target, err=errno.EINTR)
            return
        if op == INIT:
            major, minor, readahead, flags = struct.unpack_from('<IIII', body)
            out = struct.pack('<IIIIHHIIHHI', 7, 31, readahead, 0, 16, 12, 65536, 1, 0, 0, 0)
            return self.reply(unique, out + b'\0' * (64 - len(out)))
        if op == LOOKUP:
            name = body.split(b'\0', 1)[0].decode()
            if node != ROOT or name != FILENAME:
                return self.reply(unique, err=errno.ENOENT)
            return self.reply(unique, struct.pack('<QQQQII', NODE, 0, 3600, 3600, 0, 0) + self.attr(NODE))
        if op == GETATTR:
            return self.reply(unique, struct.pack('<QII', 3600, 0, 0) + self.attr(node))
        if op in (OPEN, OPENDIR):
            flags, = struct.unpack_from('<I', body)
            fh = self.next_fh
            self.next_fh += 1
            if op == OPEN:
                self.files[fh] = {'buf': bytearray(), 'kh': set(), 'parked': None,
                                  'nonblock': bool(flags & os.O_NONBLOCK)}
            return self.reply(unique, struct.pack('<QII', fh, FOPEN_DIRECT_IO | FOPEN_NONSEEKABLE, 0))
        if op == READDIR:
            fh, off = struct.unpack_from('<QQ', body)
            out = b''
            if off == 0:
                for i, (ino, nm, typ) in enumerate(((ROOT, b'.', 4), (ROOT, b'..', 4), (NODE, FILENAME.encode(), 8))):
                    ent = struct.pack('<QQII', ino, i + 1, len(nm), typ) + nm
                    out += ent + b'\0' * (-len(ent) % 8)
            return self.reply(unique, out)
        if op == READ:
            fh, off, size = struct.unpack_from('<QQI', body)
            f = self.files.get(fh)
            if f is None:
                return self.reply(unique, err=errno.EBADF)
            if f['buf']:
                return self.deliver(f, unique, size)
            if f['nonblock']:
                return self.reply(unique, err=errno.EAGAIN)
            f['parked'] = [unique, size]
            return
        if op == POLL:
            fh, kh, pflags, events = struct.unpack_from('<QQII', body)
            f = self.files.get(fh)
            if f is None:
                return self.reply(unique, err=errno.EBADF)
            if pflags & FUSE_POLL_SCHEDULE_NOTIFY:
                f['kh'].add(kh)
            rev = POLLOUT | POLLWRNORM | ((POLLIN | POLLRDNORM) if f['buf'] else 0)
            return self.reply(unique, struct.pack('<II', rev, 0))
        if op == IOCTL:
            fh, iflags, cmd, arg, in_size, out_size = struct.unpack_from('<QIIQII', body)
            res, data = self.ioctl(cmd, out_size)
            if res < 0:
                return self.reply(unique, err=-res)
            return self.reply(unique, struct.pack('<iIII', res, 0, 0, 0) + data[:out_size])
        if op == RELEASE:
            fh, = struct.unpack_from('<Q', body)
            f = self.files.pop(fh, None)
            if f and f['parked']:
                self.reply(f['parked'][0], err=errno.EBADF)
            self.check_waiters()
            return self.reply(unique)
        if op in (FLUSH, RELEASEDIR, ACCESS):
            return self.reply(unique)
        if op == DESTROY:
            self.reply(unique)
            raise SystemExit(0)
        return self.reply(unique, err=errno.ENOSYS)    # xattrs, setattr, statfs, ...

    def deliver(self, f, unique, size):
        n = min(len(f['buf']), size - size % EVSZ)
        if n <= 0:
            return self.reply(unique, err=errno.EINVAL)
        data = bytes(f['buf'][:n])
        del f['buf'][:n]
        self.reads += 1
        self.last_read = time.monotonic()    # when the driver took these events (CLOCK_MONOTONIC)
        self.reply(unique, data)
        self.check_waiters()

    def ioctl(self, cmd, size):
        """The evdev ioctls, as drivers/input/evdev.c answers them."""
        typ, nr = (cmd >> 8) & 0xff, cmd & 0xff
        if typ != ord('E'):
            return -errno.ENOTTY, b''
        if nr == 0x01:                           # EVIOCGVERSION
            return 0, struct.pack('<i', 0x010001)
        if nr == 0x02:                           # EVIOCGID
            return 0, struct.pack('<HHHH', BUS_USB, WACOM_VENDOR, PRODUCT, 0x0110)
        if nr in (0x06, 0x07):                   # EVIOCGNAME, EVIOCGPHYS
            s = (self.name if nr == 0x06 else b'penemu/input0') + b'\0'
            return min(len(s), size), s
        if nr == 0x08:                           # EVIOCGUNIQ
            return -errno.ENOENT, b''
        if nr == 0x09:                           # EVIOCGPROP
            return size, bits([INPUT_PROP_DIRECT], size)
        if nr == 0x18:                           # EVIOCGKEY: current key state
            return size, bits([k for k, v in self.pen.keys.items() if v], size)
        if nr in (0x19, 0x1a, 0x1b):             # EVIOCGLED, EVIOCGSND, EVIOCGSW
            return size, bytes(size)
        if 0x20 <= nr < 0x40:                    # EVIOCGBIT(ev, len)
            ev = nr - 0x20
            caps = {0: [EV_SYN, EV_KEY, EV_ABS, EV_MSC], EV_KEY: list(KEYS),
                    EV_ABS: list(self.pen.abs), EV_MSC: [MSC_SERIAL]}.get(ev, [])
            return size, bits(caps, size)
        if 0x40 <= nr < 0x80:                    # EVIOCGABS(abs)
            if nr - 0x40 not in self.pen.abs:
                return -errno.EINVAL, b''
            return 0, self.pen.absinfo(nr - 0x40)
        if nr in (0x90, 0x91, 0xa0):             # EVIOCGRAB, EVIOCREVOKE, EVIOCSCLOCKID
            return 0, b''
        return -errno.EINVAL, b''

    # -- event queueing --------------------------------------------------------
    def push(self, evs):
        now = time.time()
        sec, usec = int(now), int((now % 1) * 1e6)
        data = b''.join(struct.pack('<qqHHi', sec, usec, t, c, v) for t, c, v in evs)
        for f in self.files.values():
            f['buf'] += data
            if len(f['buf']) > 64 * 1024 * EVSZ:      # SYN_DROPPED-like: nobody reads
                f['buf'] = f['buf'][-1024 * EVSZ:]
            if f['parked']:
                unique, size = f['parked']
                f['parked'] = None
                self.deliver(f, unique, size)
            for kh in f['kh']:
                try:
                    os.write(self.fd, OUT_HDR.pack(OUT_HDR.size + 8, FUSE_NOTIFY_POLL, 0) + struct.pack('<Q', kh))
                except OSError:
                    pass

    def drained(self):
        return all(not f['buf'] for f in self.files.values())

    def check_waiters(self):
        now = time.monotonic()
        for w in list(self.waiters):
            conn, deadline = w
            if self.drained() or now >= deadline:
                self.waiters.remove(w)
                self.send(conn, {'ok': self.drained(), 'readers': len(self.files),
                                 'last_read': getattr(self, 'last_read', None),
                                 **({} if self.drained() else {'error': 'X server did not read the events in time'})})

    # -- control socket --------------------------------------------------------
    def send(self, conn, obj):
        try:
            conn.sendall((json.dumps(obj) + '\n').encode())
        except OSError:
            self.drop(conn)

    def drop(self, conn):
        self.clients.pop(conn, None)
        self.waiters = [w for w in self.waiters if w[0] is not conn]
        conn.close()

    def command(self, conn, line):
        try:
            req = json.loads(line)
            op = req.get('op', 'frame')
            if op == 'frame':
                evs = self.pen.update(req)
                if evs:
                    self.push(evs)
                self.send(conn, {'ok': True, 'events': len(evs), 'readers': len(self.files)})
            elif op == 'fresh':
                self.push(self.pen.fresh())
                self.send(conn, {'ok': True, 'readers': len(self.files)})
            elif op == 'sync':
                self.waiters.append((conn, time.monotonic() + float(req.get('timeout', 2))))
                self.check_waiters()
            elif op == 'state':
                self.send(conn, {'ok': True, 'screen': [self.pen.w, self.pen.h], 'pen': self.pen.view,
                                 'readers': len(self.files), 'reads': self.reads,
                                 'last_read': getattr(self, 'last_read', None),
                                 'device': os.path.join(self.mnt, FILENAME)})
            else:
                self.send(conn, {'ok': False, 'error': 'unknown op %r' % op})
        except (ValueError, TypeError, KeyError, IndexError) as e:
            self.send(conn, {'ok': False, 'error': str(e)})

    def run(self):
        while True:
            rl = [self.fd, self.srv] + list(self.clients)
            timeout = 0.05 if self.waiters else None
            r, _, _ = select.select(rl, [], [], timeout)
            for s in r:
                if s == self.fd:
                    try:
                        req = os.read(self.fd, 1 << 17 | 4096)
                    except OSError as e:
                        if e.errno == errno.ENOENT:      # interrupted request, retry
                            continue
                        if e.errno == errno.ENODEV:      # unmounted
                            return
                        raise
                    self.handle(req)
                elif s is self.srv:
                    conn, _ = self.srv.accept()
                    self.clients[conn] = bytearray()
                else:
                    try:
                        chunk = s.recv(65536)
                    except OSError:
                        chunk = b''
                    if not chunk:
                        self.drop(s)
                        continue
                    buf = self.clients[s]
                    buf += chunk
                    while b'\n' in buf and s in self.clients:
                        line, _, rest = bytes(buf).partition(b'\n')
                        buf[:] = rest
                        if line.strip():
                            self.command(s, line)
            self.check_waiters()

    def close(self):
        fusemount.unmount(self.mnt)
        for p in (self.sockpath,):
            try:
                os.unlink(p)
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mount', required=True, help='empty directory to mount the device on')
    ap.add_argument('--socket', required=True, help='control socket path')
    ap.add_argument('--width', type=int, default=1920)
    ap.add_argument('--height', type=int, default=1080)
    ap.add_argument('--scale', type=int, default=10, help='tablet units per screen pixel')
    ap.add_argument('--name', default='Wacom Cintiq Pro 16 Pen')
    ap.add_argument('--pidfile')
    args = ap.parse_args()
    emu = Emulator(args)
    if args.pidfile:
        with open(args.pidfile, 'w') as f:
            f.write('%d\n' % os.getpid())
    def stop(*_):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    print('penemu: device %s, control %s' % (os.path.join(args.mount, FILENAME), args.socket), flush=True)
    try:
        emu.run()
    finally:
        emu.close()


if __name__ == '__main__':
    main()
