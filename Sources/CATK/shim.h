#include <atk/atk.h>
#include <at-spi2-atk/2.0/atk-bridge.h>

// g_signal_emit_by_name takes variable arguments, which Swift cannot pass.
static inline void sonic_atk_emit(AtkObject *object, const char *signal) { g_signal_emit_by_name(object, signal); }
