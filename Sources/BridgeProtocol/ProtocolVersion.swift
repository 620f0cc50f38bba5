/// Versions of the bridge wire protocol.
public enum ProtocolVersion {
    /// The highest version this build speaks.
    public static let current = 1
    /// Every version this build speaks, lowest first.
    public static let supported: ClosedRange<Int> = 1...1
}
