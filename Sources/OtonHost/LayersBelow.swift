// The layers below the sessions, re-exported so that the command line and the tests see the
// whole host through `import OtonHost`. Within the host each target imports only the layers
// below it (Package.swift); see docs/architecture.md.
@_exported import OtonControl
@_exported import OtonEvents
@_exported import OtonMedia
@_exported import OtonPlayback
@_exported import OtonPlugins
@_exported import OtonStations
@_exported import OtonSupport
