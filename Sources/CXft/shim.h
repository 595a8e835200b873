// Xft.h needs Xlib.h first.
#include <X11/Xlib.h>
#include <X11/Xft/Xft.h>
