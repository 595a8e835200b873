#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

/// What libtiff said about the last failure on one handle. libtiff's messages are printf formats
/// with a va_list, which Swift cannot format, so they are formatted here.
typedef struct {
    /// Every error since the buffer was last cleared, one a line, cut at the buffer's end.
    char errors[1024];
} SonicTIFFMessages;

static inline int sonic_tiff_keep_errors(TIFF *tiff, void *userData, const char *module,
                                         const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    SonicTIFFMessages *messages = userData;
    if (messages != NULL) {
        size_t used = strnlen(messages->errors, sizeof messages->errors);
        if (used > 0 && used + 1 < sizeof messages->errors) {
            messages->errors[used++] = '\n';
            messages->errors[used] = '\0';
        }
        if (used + 1 < sizeof messages->errors) {
            vsnprintf(messages->errors + used, sizeof messages->errors - used, format, arguments);
        }
    }
    return 1; // handled: libtiff's process-wide handlers (stderr) are not called
}

static inline int sonic_tiff_ignore_warning(TIFF *tiff, void *userData, const char *module,
                                            const char *format, va_list arguments) {
    (void)tiff;
    (void)userData;
    (void)module;
    (void)format;
    (void)arguments;
    return 1;
}

/// Process-wide: the few messages libtiff reports without a handle would otherwise go to stderr.
static inline void sonic_tiff_silence_process_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/// Opens `fd` for reading with messages captured in `messages` and no single allocation over
/// `maxSingleAllocation` bytes. Mode "rmh": read only; never memory-mapped, so a file that shrinks
/// while open gives read errors rather than SIGBUS; the header alone, so that a damaged first
/// directory is reported as such. On failure the caller still owns `fd`.
static inline TIFF *sonic_tiff_open(int fd, SonicTIFFMessages *messages, tmsize_t maxSingleAllocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        return NULL;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, maxSingleAllocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, sonic_tiff_keep_errors, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, sonic_tiff_ignore_warning, NULL);
    TIFF *tiff = TIFFFdOpenExt(fd, "", "rmh", options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

// TIFFGetField is variadic, which Swift cannot call: one typed wrapper per kind of value.

static inline int sonic_tiff_uint16(TIFF *tiff, uint32_t tag, uint16_t *value) {
    return TIFFGetField(tiff, tag, value);
}

static inline int sonic_tiff_uint16_defaulted(TIFF *tiff, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}

static inline int sonic_tiff_uint32(TIFF *tiff, uint32_t tag, uint32_t *value) {
    return TIFFGetField(tiff, tag, value);
}

static inline int sonic_tiff_uint32_defaulted(TIFF *tiff, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}

static inline int sonic_tiff_float(TIFF *tiff, uint32_t tag, float *value) {
    return TIFFGetField(tiff, tag, value);
}

/// An ASCII tag's text, or NULL when absent. The text belongs to the handle's current directory.
static inline const char *sonic_tiff_string(TIFF *tiff, uint32_t tag) {
    char *text = NULL;
    return TIFFGetField(tiff, tag, &text) ? text : NULL;
}

/// Creates `path` for writing, with messages captured in `messages`.
static inline TIFF *sonic_tiff_create(const char *path, SonicTIFFMessages *messages) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, sonic_tiff_keep_errors, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, sonic_tiff_ignore_warning, NULL);
    TIFF *tiff = TIFFOpenExt(path, "w", options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

// TIFFSetField is variadic too: one typed wrapper per kind of value. Rationals go as doubles.

static inline int sonic_tiff_set_uint16(TIFF *tiff, uint32_t tag, uint16_t value) {
    return TIFFSetField(tiff, tag, value);
}

static inline int sonic_tiff_set_uint32(TIFF *tiff, uint32_t tag, uint32_t value) {
    return TIFFSetField(tiff, tag, value);
}

static inline int sonic_tiff_set_rational(TIFF *tiff, uint32_t tag, double value) {
    return TIFFSetField(tiff, tag, value);
}

static inline int sonic_tiff_set_string(TIFF *tiff, uint32_t tag, const char *value) {
    return TIFFSetField(tiff, tag, value);
}
