/* libOtonHook.so exports oton_plugin_entry only (oton_plugin.h); nothing else is public. */
#ifndef OTON_HOOK_H
#define OTON_HOOK_H
#include "oton_plugin.h"
#endif
