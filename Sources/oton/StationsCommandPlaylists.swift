import ArgumentParser
import Foundation
import OtonHost

extension StationsCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Add the stations of an .m3u or .pls file to plugins.json (names already there are skipped).")
        )

        @Argument(help: ArgumentHelp(tr("The playlist file (.m3u, .m3u8 or .pls; the format is read from the text)")))
        var file: String

        @OptionGroup var edited: EditedConfigOption

        func run() throws {
            let stations: [Station]
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
                defer { try? handle.close() }
                let data = try handle.read(upToCount: PlaylistParser.maxBytes + 1) ?? Data()
                stations = try StationPlaylistFile.stations(in: data, file: file)
            } catch let failure as PlaylistParser.Failure {
                Terminal.error(
                    "\(file): not imported: \(failure == .hls ? "an HLS playlist, not a list of stations" : "larger than \(PlaylistParser.maxBytes) bytes")")
                throw ExitStatus.configuration
            } catch {
                Terminal.error("\(file): cannot read: \(error.localizedDescription)")
                throw ExitStatus.configuration
            }
            guard !stations.isEmpty else {
                Terminal.error("\(file): no http(s) station URLs in it; nothing was changed")
                throw ExitStatus.configuration
            }
            try StationsFileEdit.perform(config: edited.config) { target throws(StationsEditError) in
                var added = 0
                var skipped: [String] = []
                for station in stations {
                    do throws(StationsEditError) {
                        try target.add(station)
                        added += 1
                    } catch {
                        skipped.append(station.name)
                    }
                }
                let note = skipped.isEmpty ? "" : "; skipped \(skipped.count) already there: " + skipped.map { "\"\($0)\"" }.joined(separator: ", ")
                return "imported \(added) station\(added == 1 ? "" : "s") from \(file) into \(target.path)\(note)"
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Write the stations of plugins.json as an .m3u or .pls playlist."))

        @Argument(help: ArgumentHelp(tr("Where to write it, or - for standard output")))
        var file: String

        @Option(name: .long, help: ArgumentHelp(tr("m3u or pls (default: from the file's extension, else m3u)")))
        var format: StationPlaylistFile.Format?

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json to read instead of the lookup")))
        var config: String?

        func run() throws {
            let location: String
            do {
                switch try ConfigLoader.locate(explicit: config) {
                case let .file(path, _): location = path
                case .builtIn:
                    Terminal.error("no plugins.json in use (the built-in default); `oton config init` writes one")
                    throw ExitStatus.configuration
                }
            } catch let error as ConfigError {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            let source: StationsFile
            do {
                source = try StationsFile.load(location)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            let chosen = format ?? StationPlaylistFile.Format(fileName: file) ?? .m3u
            let text = StationPlaylistFile.export(source.entries, as: chosen)
            if file == "-" {
                print(text, terminator: "")
                return
            }
            do {
                try AtomicFileWriter.write(Data(text.utf8), to: file)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            Terminal.note("wrote \(source.entries.count) station\(source.entries.count == 1 ? "" : "s") to \(file) (\(chosen.rawValue))")
        }
    }
}

extension StationPlaylistFile.Format: ExpressibleByArgument {}
