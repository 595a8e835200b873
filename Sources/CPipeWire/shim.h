// libpipewire and SPA, with C helpers for what Swift cannot import: the core's methods (macros that
// call through an interface), the variadic properties constructor, PW_ID_ANY (a cast) and the
// format POD, which SPA builds with inline functions.
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>

static inline struct pw_properties *sonic_pw_properties_new(void) { return pw_properties_new(NULL, NULL); }

static inline int sonic_pw_core_add_listener(struct pw_core *core, struct spa_hook *listener,
                                             const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, listener, events, data);
}

// The core answers with a `done` event carrying the returned sequence number once it has handled
// everything sent before: a round trip.
static inline int sonic_pw_core_sync(struct pw_core *core) { return pw_core_sync(core, PW_ID_CORE, 0); }

// Connects `stream` for playback of interleaved float32 frames at `rate`, front left and right,
// to whatever sink the session manager picks. `flags` are pw_stream_flags.
static inline int sonic_pw_stream_connect_stereo_float(struct pw_stream *stream, uint32_t rate, uint32_t flags) {
    uint8_t buffer[256];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    struct spa_audio_info_raw info = {
        .format = SPA_AUDIO_FORMAT_F32,
        .rate = rate,
        .channels = 2,
        .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR },
    };
    const struct spa_pod *params[1] = { spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info) };
    return pw_stream_connect(stream, PW_DIRECTION_OUTPUT, PW_ID_ANY, (enum pw_stream_flags)flags, params, 1);
}

// Asks the graph for a new period: the stream's node.latency, as "frames/rate".
static inline int sonic_pw_stream_set_latency(struct pw_stream *stream, const char *latency) {
    const struct spa_dict_item items[1] = { SPA_DICT_ITEM_INIT(PW_KEY_NODE_LATENCY, latency) };
    const struct spa_dict dict = SPA_DICT_INIT(items, 1);
    return pw_stream_update_properties(stream, &dict);
}
