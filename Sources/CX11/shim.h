// Xutil.h needs Xlib.h first, so the headers are pulled in here in order.
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/keysym.h>

// XDestroyImage is a macro; this frees the image and its malloc'ed pixel data.
static inline void sonic_destroy_image(XImage *image) { XDestroyImage(image); }
