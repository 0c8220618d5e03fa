// A Swift plugin reads its config with OtonJSON's PluginConfigReader; importing OtonPluginKit is enough.
@_exported import OtonJSON
