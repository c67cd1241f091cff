"""The protobuf wire format, as the scripts that write test and benchmark
files by hand need it (imported by them; `python3 scripts/NAME.py` puts
this folder on the import path)."""


def varint(n):
    """`n` as a varint; a negative value as its 64-bit two's complement,
    as protobuf writes a negative int32/int64."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(number, wire):
    """The key of field `number` with wire type `wire`."""
    return varint(number << 3 | wire)


def vfield(number, value):
    """A varint field."""
    return key(number, 0) + varint(value)


def lfield(number, payload):
    """A length-delimited field."""
    return key(number, 2) + varint(len(payload)) + payload
