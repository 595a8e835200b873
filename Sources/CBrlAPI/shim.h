#include <brlapi.h>

/* brlapi_errno, brlapi_error and the key-code masks are macros, which Swift does not import. */

static inline const char *sa_brlapi_error_text(void) { return brlapi_strerror(&brlapi_error); }

/* The commands of a display's keys the program answers; SA_BRLAPI_OTHER for the rest. */
enum {
    SA_BRLAPI_OTHER = 0,
    SA_BRLAPI_PAN_LEFT,
    SA_BRLAPI_PAN_RIGHT,
    SA_BRLAPI_LINE_UP,
    SA_BRLAPI_LINE_DOWN,
    SA_BRLAPI_TOP,
    SA_BRLAPI_BOTTOM,
    SA_BRLAPI_HOME,
    SA_BRLAPI_ROUTE,
    SA_BRLAPI_DISPLAY_MODE
};

/* The command of a key code read in tty mode without a driver's own keys; a routing key's cell (from 0) in
   *argument. */
static inline int sa_brlapi_command(brlapi_keyCode_t code, int *argument) {
    *argument = 0;
    if ((code & BRLAPI_KEY_TYPE_MASK) != BRLAPI_KEY_TYPE_CMD) return SA_BRLAPI_OTHER;
    brlapi_keyCode_t command = code & BRLAPI_KEY_CODE_MASK;
    if ((command & BRLAPI_KEY_CMD_BLK_MASK) == BRLAPI_KEY_CMD_ROUTE) {
        *argument = (int)(command & BRLAPI_KEY_CMD_ARG_MASK);
        return SA_BRLAPI_ROUTE;
    }
    switch (command) {
    case BRLAPI_KEY_CMD_FWINLT: return SA_BRLAPI_PAN_LEFT;
    case BRLAPI_KEY_CMD_FWINRT: return SA_BRLAPI_PAN_RIGHT;
    case BRLAPI_KEY_CMD_LNUP: return SA_BRLAPI_LINE_UP;
    case BRLAPI_KEY_CMD_LNDN: return SA_BRLAPI_LINE_DOWN;
    case BRLAPI_KEY_CMD_TOP: case BRLAPI_KEY_CMD_TOP_LEFT: return SA_BRLAPI_TOP;
    case BRLAPI_KEY_CMD_BOT: case BRLAPI_KEY_CMD_BOT_LEFT: return SA_BRLAPI_BOTTOM;
    case BRLAPI_KEY_CMD_HOME: case BRLAPI_KEY_CMD_RETURN: return SA_BRLAPI_HOME;
    case BRLAPI_KEY_CMD_DISPMD: return SA_BRLAPI_DISPLAY_MODE;
    default: return SA_BRLAPI_OTHER;
    }
}

/* The display's size as the server has it now (brlapi_getDisplaySize keeps the size of the connection's start). */
static inline int sa_brlapi_display_size(unsigned int *columns, unsigned int *rows) {
    brlapi_param_displaySize_t size;
    ssize_t got = brlapi_getParameter(BRLAPI_PARAM_DISPLAY_SIZE, 0, BRLAPI_PARAMF_GLOBAL, &size, sizeof size);
    if (got != (ssize_t)sizeof size) return -1;
    *columns = size.columns;
    *rows = size.rows;
    return 0;
}

/* Writes UTF-8 text from the display's first cell, padded with blanks to its end. */
static inline int sa_brlapi_write_text(const char *text, int characters) {
    brlapi_writeArguments_t arguments = BRLAPI_WRITEARGUMENTS_INITIALIZER;
    arguments.regionBegin = 1;
    arguments.regionSize = -characters;
    arguments.text = text;
    arguments.textSize = -1;
    arguments.charset = "UTF-8";
    arguments.cursor = BRLAPI_CURSOR_OFF;
    return brlapi_write(&arguments);
}
