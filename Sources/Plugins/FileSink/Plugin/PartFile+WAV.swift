import FileSinkLogic

/// WAV bookkeeping on a file being recorded from the PCM tap (see WAVLayout).
extension PartFile {
    func writeWAVHeader(_ format: PCMFormat) throws {
        try write(WAVLayout.header(format))
    }

    /// Writes the current sizes into the header, so that the file plays as far as it goes even if it is never finished.
    func refreshWAVSizes() throws {
        let data = size > UInt64(WAVLayout.dataOffset) ? size - UInt64(WAVLayout.dataOffset) : 0
        for patch in WAVLayout.sizePatches(dataBytes: data) { try overwrite(patch.bytes, at: patch.offset) }
    }

    /// Fills the reserved tag region (in place: the file does not grow).
    func writeWAVTags(_ tags: TrackTags) throws {
        try overwrite(WAVLayout.tagRegion(tags), at: WAVLayout.tagRegionOffset)
    }
}
