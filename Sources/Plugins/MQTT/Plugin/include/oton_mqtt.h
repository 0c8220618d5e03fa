/* libOtonMQTT.so exports oton_plugin_entry only (oton_plugin.h); nothing else is public. */
#ifndef OTON_MQTT_H
#define OTON_MQTT_H
#include "oton_plugin.h"
#endif
