#include <speech-dispatcher/libspeechd.h>
