import FileSinkLogic
import Foundation

/// Turns a finished .part file into the track's file: tags it (ID3v2.4 in
/// front of MP3, which needs a copy; the reserved INFO region of WAV, in
/// place) and names it without replacing anything.
struct TrackFinisher {
    let settings: FileSinkSettings
    let log: (UInt32, String) -> Void

    struct Track {
        var segment: TrackSplitter.Segment
        var artworkPath: String?
    }

    /// Writes what must be inside the file before it is closed (WAV sizes and tags).
    func seal(_ file: PartFile, _ track: Track, tagging: Bool) {
        guard track.segment.container == .pcm else { return }
        do {
            try file.refreshWAVSizes()
            if settings.writeTags && tagging { try file.writeWAVTags(wavTags(track)) }
        } catch {
            log(2, "cannot finish the WAV header of \(file.path): \(error)")
        }
    }

    /// Names the closed file `relative` (inside the output folder), tagging MP3 first. Returns its path.
    func finalize(_ file: PartFile, _ track: Track, relative: String, tagging: Bool) throws -> String {
        let target = settings.directory + "/" + relative
        let directory = (target as NSString).deletingLastPathComponent
        try FileOps.makeDirectories(directory)
        guard FileOps.isInside(directory, root: settings.directory) else {
            throw PartFile.Failure(description: "\(directory) leads outside the output folder")
        }
        if settings.writeTags && tagging && track.segment.container == .mpegAudio {
            if let tagged = prependID3(file, track, relative: relative, target: target) { return tagged }
        }
        if settings.writeTags && tagging && track.segment.container == .ogg {
            if let tagged = rewriteOgg(file, track, relative: relative, target: target) { return tagged }
        }
        return try FileOps.linkWithoutReplacing(file.path, to: target)
    }

    /// The tagged copy's final path, or nil (logged) when tagging failed and the file stays untagged.
    private func prependID3(_ file: PartFile, _ track: Track, relative: String, target: String) -> String? {
        do {
            let tagged = try FileOps.createUnique(file.path + ".tagging", suffix: "")
            do {
                try tagged.write(id3(track).bytes())
                try FileOps.append(contentsOf: file.path, to: tagged)
                tagged.close()
                let name = try FileOps.linkWithoutReplacing(tagged.path, to: target)
                unlink(file.path)
                return name
            } catch {
                tagged.close()
                unlink(tagged.path)
                throw error
            }
        } catch {
            log(2, "cannot tag \(relative) (\(error)); keeping it untagged")
            return nil
        }
    }

    /// Copies an Ogg file through OggTagRewriter (comments, page numbers, granules). Nil (logged) on failure.
    private func rewriteOgg(_ file: PartFile, _ track: Track, relative: String, target: String) -> String? {
        let metadata = track.segment.metadata
        var rewriter = OggTagRewriter(tags: .init(title: metadata?.title, artist: metadata?.artist,
                                                  album: metadata?.station ?? settings.station,
                                                  comment: metadata?.streamURL ?? settings.streamURL),
                                      granuleBase: track.segment.granuleBase)
        do {
            let tagged = try FileOps.createUnique(file.path + ".tagging", suffix: "")
            do {
                try FileOps.forEachChunk(of: file.path) { chunk in
                    let out = rewriter.push(chunk)
                    if !out.isEmpty { try tagged.write(out) }
                }
                let rest = rewriter.finish()
                if !rest.isEmpty { try tagged.write(rest) }
                tagged.close()
                let name = try FileOps.linkWithoutReplacing(tagged.path, to: target)
                unlink(file.path)
                return name
            } catch {
                tagged.close()
                unlink(tagged.path)
                throw error
            }
        } catch {
            log(2, "cannot tag \(relative) (\(error)); keeping it as recorded")
            return nil
        }
    }

    private func id3(_ track: Track) -> ID3v2Tag {
        let metadata = track.segment.metadata
        var tag = ID3v2Tag(title: metadata?.title, artist: metadata?.artist, album: metadata?.station ?? settings.station,
                           comment: metadata?.streamURL ?? settings.streamURL)
        if let path = track.artworkPath, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let size = attributes[.size] as? NSNumber, size.intValue <= 4 << 20,
           let data = FileManager.default.contents(atPath: path) {
            let bytes = [UInt8](data)
            if let type = ID3v2Tag.imageType(bytes) { tag.picture = .init(mimeType: type, data: bytes) }
        }
        return tag
    }

    private func wavTags(_ track: Track) -> WAVLayout.Tags {
        let metadata = track.segment.metadata
        return WAVLayout.Tags(title: metadata?.title, artist: metadata?.artist, album: metadata?.station ?? settings.station,
                              comment: metadata?.streamURL ?? settings.streamURL)
    }
}
