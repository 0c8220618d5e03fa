import Foundation
import OtonWindow

// `oton window` runs this (Sources/oton/WindowCommand.swift): the GTK window, a client of the player's control socket.
let words = Array(CommandLine.arguments.dropFirst())
if words.contains("--help") || words.contains("-h") {
    print(WindowArguments.usage)
    exit(0)
}
let arguments: WindowArguments
do {
    arguments = try WindowArguments.parse(words)
} catch {
    FileHandle.standardError.write(Data("oton window: \(error.description)\n\(WindowArguments.usage)\n".utf8))
    exit(WindowExit.usage)
}
guard WindowExit.displayReachable() else { exit(WindowExit.noDisplay) }
exit(WindowApplication(arguments: arguments).run())
