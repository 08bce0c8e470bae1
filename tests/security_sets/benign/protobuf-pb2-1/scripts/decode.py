"""Print each length-delimited Reading message in the given capture files as JSON."""

import sys

from google.protobuf.internal.decoder import _DecodeVarint32
from google.protobuf.json_format import MessageToJson

from gen import telemetry_pb2

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    pos = 0
    while pos < len(data):
        size, pos = _DecodeVarint32(data, pos)
        message = telemetry_pb2.Reading()
        message.ParseFromString(data[pos:pos + size])
        pos += size
        print(MessageToJson(message, indent=None))
