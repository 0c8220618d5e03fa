/* The UPnP plugin's forwarder exports only oton_plugin_entry (declared in oton_plugin.h). */
#ifndef OTON_UPNP_FORWARDER_H
#define OTON_UPNP_FORWARDER_H
#include "oton_plugin.h"
#endif
