#if canImport(Glibc)
    import Glibc
#endif

/// One entry of a ``ConfinedDirectory``.
public struct ConfinedEntry: Sendable, Hashable {
    /// What an entry is, read without following links.
    public enum Kind: Sendable, Hashable {
        case file
        case directory
        case symbolicLink
        /// A symbolic link whose target is a directory (wherever it is).
        case linkToDirectory
        /// A FIFO, socket or device.
        case other

        init(mode: UInt32) {
            switch mode & S_IFMT {
            case S_IFREG: self = .file
            case S_IFDIR: self = .directory
            case S_IFLNK: self = .symbolicLink
            default: self = .other
            }
        }
    }

    public var name: String
    public var kind: Kind
}
