import FileSinkLogic
import Foundation

/// Turns a finished .part file into the track's file: tags it (ID3v2.4 in
/// front of MP3, the rewritten comment header of Ogg and the VORBIS_COMMENT
/// block of native FLAC, by copying; the reserved INFO region of WAV, in place) and names it without
/// replacing anything. A file that cannot be tagged keeps its name untagged.
struct TrackFinisher {
    let settings: FileSinkSettings
    let log: (Recorder.LogLevel, String) -> Void

    struct Track {
        var segment: TrackSplitter.Segment
        var artworkPath: String?
    }

    /// Writes what must be inside the file before it is closed (WAV sizes and tags).
    func seal(_ file: PartFile, _ track: Track, tagging: Bool) {
        if track.segment.container == .flac {
            // STREAMINFO was written with total samples unknown: it now says the file's own length,
            // which players read as its duration (a cut FLAC file once read as the whole stream's).
            do {
                if let patch = FLACStreamInfo.totalSamplesPatch(head: try file.head(42), durationNanoseconds: track.segment.durationNanoseconds) {
                    try file.overwrite(patch.bytes, at: patch.offset)
                }
            } catch {
                log(.warning, "cannot write the length into the FLAC header of \(file.path): \(error)")
            }
            return
        }
        guard track.segment.container == .pcm else { return }
        do {
            try file.refreshWAVSizes()
            if settings.writeTags && tagging { try file.writeWAVTags(tags(track)) }
        } catch {
            log(.warning, "cannot finish the WAV header of \(file.path): \(error)")
        }
    }

    /// Names the closed file `relative` (inside the output folder), tagging MP3, Ogg and FLAC first, and
    /// flushes what gets the name to the disk before naming it. Returns its path.
    func finalize(_ file: PartFile, _ track: Track, relative: String, tagging: Bool) throws -> String {
        let target = settings.directory + "/" + relative
        let directory = (target as NSString).deletingLastPathComponent
        try FileOps.makeDirectories(directory)
        guard FileOps.isInside(directory, root: settings.directory) else {
            throw PartFile.Failure(description: "\(directory) leads outside the output folder")
        }
        // `tagging` is false once the disk failed or filled (each of these copies the file). The Ogg
        // copy also makes the file play from 0 and trims its end to the duration asked for, so it is
        // made with or without tags.
        if tagging {
            switch track.segment.container {
            case .mpegAudio where settings.writeTags:
                let tag = id3(track).bytes()
                if let tagged = copy(
                    file, relative: relative, to: target,
                    { output in
                        try output.write(tag)
                        var xing = XingFrame()
                        try FileOps.forEachChunk(of: file.path) { xing.count($0) }
                        if let frame = xing.frame() { try output.write(frame) }
                        try FileOps.append(contentsOf: file.path, to: output)
                    })
                {
                    return tagged
                }
            case .ogg:
                var rewriter = OggTagRewriter(
                    tags: settings.writeTags ? tags(track) : nil, granuleBase: track.segment.granuleBase,
                    keepNanoseconds: track.segment.trimNanoseconds > 0 ? track.segment.durationNanoseconds : nil)
                if let tagged = copy(file, relative: relative, to: target, rewritten: { rewriter.push($0) }, end: { rewriter.finish() }) {
                    return tagged
                }
            case .flac where settings.writeTags:
                var rewriter = FLACTagRewriter(tags: tags(track))
                if let tagged = copy(file, relative: relative, to: target, rewritten: { rewriter.push($0) }, end: { rewriter.finish() }) {
                    return tagged
                }
            case .mpegAudio, .flac, .adts, .pcm, .unknown:
                break
            }
        }
        try FileOps.sync(file.path)
        return try FileOps.linkWithoutReplacing(file.path, to: target, caseBlind: settings.template.portable)
    }

    /// NAME.cue beside the finished file: its first track at 0, then every title that began inside it (--no-split).
    func writeCue(_ track: Track, marks: [CueSheet.Track], beside path: String) {
        let metadata = track.segment.metadata
        let first = CueSheet.Track(title: metadata?.title, performer: metadata?.artist, nanoseconds: 0)
        let sheet = CueSheet(
            fileName: (path as NSString).lastPathComponent, station: metadata?.station ?? settings.station,
            tracks: [first] + marks)
        let cuePath = (path as NSString).deletingPathExtension + ".cue"
        do {
            try FileOps.replaceAtomically(cuePath, with: Data(sheet.text.utf8))
        } catch {
            log(.warning, "cannot write the CUE sheet \(cuePath): \(error)")
        }
    }

    /// ``copy(_:relative:to:_:)`` with `file`'s bytes through a rewriter (`rewritten` for each chunk, then `end`).
    private func copy(_ file: PartFile, relative: String, to target: String, rewritten: ([UInt8]) -> [UInt8], end: () -> [UInt8]) -> String? {
        copy(file, relative: relative, to: target) { output in
            try FileOps.forEachChunk(of: file.path) { chunk in
                let bytes = rewritten(chunk)
                if !bytes.isEmpty { try output.write(bytes) }
            }
            let rest = end()
            if !rest.isEmpty { try output.write(rest) }
        }
    }

    /// Writes a new file beside `file` with `fill`, names it `target` and removes `file`.
    /// Nil (logged) when that fails: the caller keeps the file as recorded.
    private func copy(_ file: PartFile, relative: String, to target: String, _ fill: (PartFile) throws -> Void) -> String? {
        do {
            let output = try FileOps.createUnique(file.path + ".tagging", suffix: "")
            do {
                try fill(output)
                output.close()
                let name = try FileOps.linkWithoutReplacing(output.path, to: target, caseBlind: settings.template.portable)
                unlink(file.path)
                return name
            } catch {
                output.close()
                unlink(output.path)
                throw error
            }
        } catch {
            log(.warning, "cannot tag \(relative) (\(error)); keeping it as recorded")
            return nil
        }
    }

    private func tags(_ track: Track) -> TrackTags {
        let metadata = track.segment.metadata
        return TrackTags(
            title: metadata?.title, artist: metadata?.artist, album: metadata?.station ?? settings.station,
            comment: metadata?.streamURL ?? settings.streamURL, titleSource: metadata?.titleSource)
    }

    private func id3(_ track: Track) -> ID3v2Tag {
        let tags = tags(track)
        var tag = ID3v2Tag(title: tags.title, artist: tags.artist, album: tags.album, comment: tags.comment)
        if let source = tags.titleSource { tag.userTexts.append(.init(TrackTags.titleSourceKey, source)) }
        if let path = track.artworkPath, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber, size.intValue <= 4 << 20,
            let data = FileManager.default.contents(atPath: path)
        {
            let bytes = [UInt8](data)
            if let type = ID3v2Tag.imageType(bytes) { tag.picture = .init(mimeType: type, data: bytes) }
        }
        return tag
    }
}
