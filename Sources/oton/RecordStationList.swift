import ArgumentParser
import Foundation
import OtonHost

/// Which stations `oton record` records: the arguments (names, URLs, files), plugins.json's with
/// --all, an .m3u/.pls list with --stations, narrowed by --shard. The same URL twice is recorded once.
enum RecordStationList {
    static func choose(
        arguments: [String], all: Bool, file: String?, shard: String?, config: OtonConfig,
        options: GlobalOptions
    ) throws -> [Station] {
        var stations: [Station] = []
        if arguments.isEmpty && !all && file == nil {
            stations.append(try options.resolveStation(nil, in: config))
        }
        for argument in arguments { stations.append(try options.resolveStation(argument, in: config)) }
        if all {
            guard !config.stations.isEmpty else {
                Terminal.error("--all: plugins.json lists no stations; add some with `oton stations add` or name them")
                throw ExitStatus.configuration
            }
            stations += config.stations
        }
        if let file { stations += try fromFile(file) }
        var seen: Set<String> = []
        stations = stations.filter { seen.insert($0.url).inserted }
        if let shard {
            let selection: ShardSelection
            do {
                selection = try ShardSelection(shard)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            let before = stations.count
            stations = stations.filter { selection.keeps($0.url) }
            FileHandle.standardError.write(Data("oton: shard \(selection.index)/\(selection.count): \(stations.count) of \(before) stations\n".utf8))
        }
        guard !stations.isEmpty else {
            if let shard {
                // Not an error: with few stations and many shards some shards have none (a restart would not change it).
                FileHandle.standardError.write(Data("oton: shard \(shard) owns none of these stations; nothing to record\n".utf8))
                throw ExitCode.success
            }
            Terminal.error("no station to record")
            throw ExitStatus.configuration
        }
        return stations
    }

    /// An .m3u or .pls file: each entry a station, named by its title or its address.
    private static func fromFile(_ path: String) throws -> [Station] {
        let url = URL(fileURLWithPath: path)
        guard let body = FileManager.default.contents(atPath: path) else {
            Terminal.error("--stations \(path): cannot read the file")
            throw ExitStatus.configuration
        }
        let format = PlaylistDetector.format(body: body, contentType: nil, url: url) ?? .m3u
        do {
            let playlist = try PlaylistParser.parse(body, format: format, base: url)
            // Local files are recorded only when named on the command line: a list (written by
            // anyone, or fetched) must not turn a file of this machine into a "recording" (issue 39, N7).
            let streams = playlist.entries.filter { StationResolver.scheme(of: $0.url).map { ["http", "https"].contains($0) } ?? false }
            let local = playlist.entries.count - streams.count
            if local > 0 {
                Terminal.error(
                    tr(
                        "--stations {path}: entries naming local files are left out ({count}); name a local file on the command line to record it",
                        ["path": path, "count": String(local)]))
            }
            guard !streams.isEmpty else {
                Terminal.error("--stations \(path): the list names no http(s) stream")
                throw ExitStatus.configuration
            }
            return streams.map { entry in
                Station(name: entry.title.flatMap { $0.isEmpty ? nil : $0 } ?? URL(string: entry.url)?.host ?? entry.url, url: entry.url)
            }
        } catch let failure as PlaylistParser.Failure {
            Terminal.error("--stations \(path): \(failure)")
            throw ExitStatus.configuration
        }
    }
}
