// The host's JSON values (plugins.json, status APIs, control requests) are OtonJSON's; users
// of OtonHost (the CLI, the tests) see them without importing a second module.
@_exported import OtonJSON
