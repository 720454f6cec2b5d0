"""Fluss types for the pyfluss driver: parsed from the suite's spec syntax (`DECIMAL(10, 2)`,
`ARRAY<MAP<STRING, ROW<`values` ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>`) and from the text pyfluss
prints (`decimal(10,2)`, `map<string NOT NULL,bigint>`, `row<x: int, y: string>`), and the pyarrow
type that makes pyfluss create each of them."""

import re

import pyarrow as pa

_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)+`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([(),<>:]))")
_ALIASES = {"integer": "int"}
_SIMPLE_ARROW = {"boolean": pa.bool_(), "tinyint": pa.int8(), "smallint": pa.int16(), "int": pa.int32(),
                 "bigint": pa.int64(), "float": pa.float32(), "double": pa.float64(), "string": pa.string(),
                 "char": pa.string(), "bytes": pa.binary(), "date": pa.date32()}


class FlussType:
    """A Fluss type: `root` (lower case), `n`/`m` (length, precision, scale), `nullable`, and for
    nested types `element` (ARRAY), `key`/`value` (MAP) or `fields` ([(name, FlussType)], ROW)."""

    def __init__(self, text):
        parser = _Parser(text)
        parsed = parser.type()
        parser.end()
        self.__dict__.update(parsed.__dict__)

    @classmethod
    def _of(cls, root, n=None, m=None, element=None, key=None, value=None, fields=None):
        t = cls.__new__(cls)
        t.root, t.n, t.m, t.nullable = root, n, m, True
        t.element, t.key, t.value, t.fields = element, key, value, fields
        if root in ("timestamp", "timestamp_ltz") and n is None:
            t.n = 6
        return t

    @property
    def nested(self):
        return self.root in ("array", "map", "row")

    def arrow(self):
        """The pyarrow type that makes pyfluss create this Fluss type (CHAR(n) has none: STRING)."""
        if self.root == "array":
            return pa.list_(pa.field("element", self.element.arrow(), nullable=self.element.nullable))
        if self.root == "map":
            return pa.map_(self.key.arrow(), pa.field("value", self.value.arrow(), nullable=self.value.nullable))
        if self.root == "row":
            return pa.struct([pa.field(name, t.arrow(), nullable=t.nullable) for name, t in self.fields])
        if self.root in _SIMPLE_ARROW:
            return _SIMPLE_ARROW[self.root]
        if self.root == "decimal":
            return pa.decimal128(self.n, self.m or 0)
        if self.root == "binary":
            return pa.binary(self.n)
        p = self.n or 0
        if self.root == "time":
            return pa.time32("s") if p == 0 else pa.time32("ms") if p <= 3 else pa.time64("us") if p <= 6 else pa.time64("ns")
        unit = "s" if p == 0 else "ms" if p <= 3 else "us" if p <= 6 else "ns"
        if self.root == "timestamp":
            return pa.timestamp(unit)
        if self.root == "timestamp_ltz":
            return pa.timestamp(unit, tz="UTC")
        raise ValueError("unsupported type %s" % self.root)


class _Parser:
    def __init__(self, text):
        self.text, self.tokens, self.at = text, [], 0
        pos, stripped = 0, text.rstrip()
        while pos < len(stripped):
            m = _TOKEN.match(stripped, pos)
            if not m:
                raise ValueError("unsupported type %r" % text)
            pos = m.end()
            quoted, word, number, symbol = m.groups()
            if quoted is not None:
                self.tokens.append(("name", quoted[1:-1].replace("``", "`")))
            elif word is not None:
                self.tokens.append(("word", word))
            elif number is not None:
                self.tokens.append(("number", int(number)))
            else:
                self.tokens.append(("symbol", symbol))

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else (None, None)

    def take(self, kind=None, text=None):
        token = self.peek()
        if token[0] is None or (kind and token[0] != kind) or (text and str(token[1]).lower() != text):
            raise ValueError("unsupported type %r (at token %d)" % (self.text, self.at))
        self.at += 1
        return token[1]

    def accept(self, text):
        if str(self.peek()[1]).lower() == text and self.peek()[0] in ("symbol", "word"):
            self.at += 1
            return True
        return False

    def end(self):
        if self.at != len(self.tokens):
            raise ValueError("unsupported type %r (trailing tokens)" % self.text)

    def type(self):
        word = self.take("word").lower()
        root = _ALIASES.get(word, word)
        if root == "array":
            self.take("symbol", "<")
            t = FlussType._of(root, element=self.type())
            self.take("symbol", ">")
        elif root == "map":
            self.take("symbol", "<")
            key = self.type()
            self.take("symbol", ",")
            t = FlussType._of(root, key=key, value=self.type())
            self.take("symbol", ">")
        elif root == "row":
            self.take("symbol", "<")
            fields = [self.field()]
            while self.accept(","):
                fields.append(self.field())
            self.take("symbol", ">")
            t = FlussType._of(root, fields=fields)
        else:
            n = m = None
            if self.accept("("):
                n = self.take("number")
                if self.accept(","):
                    m = self.take("number")
                self.take("symbol", ")")
            t = FlussType._of(root, n, m)
        if self.accept("not"):
            self.take("word", "null")
            t.nullable = False
        return t

    def field(self):
        kind, name = self.peek()
        if kind not in ("name", "word"):
            raise ValueError("unsupported type %r (field name expected)" % self.text)
        self.at += 1
        self.accept(":")
        return name, self.type()
