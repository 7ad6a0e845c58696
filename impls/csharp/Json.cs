// The little JSON the protocol needs (docs/external.md): a reader for the request (objects,
// arrays, strings, numbers, true/false/null) and string escaping for the reply. Mono's own JSON
// readers (System.Json, DataContractJsonSerializer) are separate Debian packages; this keeps the
// implementation to mono-runtime and mono-mcs.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

static class Json
{
    // Objects become Dictionary<string, object>, arrays List<object>, numbers long when integral
    // (else double), strings string, true/false bool, null null.
    public static object Parse(string s)
    {
        int i = 0;
        object v = Value(s, ref i);
        Space(s, ref i);
        if (i != s.Length)
            throw new FormatException("trailing characters at offset " + i);
        return v;
    }

    static void Space(string s, ref int i)
    {
        while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
    }

    static object Value(string s, ref int i)
    {
        Space(s, ref i);
        if (i >= s.Length)
            throw new FormatException("unexpected end of input");
        char c = s[i];
        if (c == '{') {
            var o = new Dictionary<string, object>();
            i++;
            Space(s, ref i);
            if (i < s.Length && s[i] == '}') {
                i++;
                return o;
            }
            for (;;) {
                Space(s, ref i);
                if (i >= s.Length || s[i] != '"')
                    throw new FormatException("expected a key at offset " + i);
                string k = Str(s, ref i);
                Space(s, ref i);
                Expect(s, ref i, ':');
                o[k] = Value(s, ref i);
                Space(s, ref i);
                if (i < s.Length && s[i] == ',') {
                    i++;
                    continue;
                }
                Expect(s, ref i, '}');
                return o;
            }
        }
        if (c == '[') {
            var a = new List<object>();
            i++;
            Space(s, ref i);
            if (i < s.Length && s[i] == ']') {
                i++;
                return a;
            }
            for (;;) {
                a.Add(Value(s, ref i));
                Space(s, ref i);
                if (i < s.Length && s[i] == ',') {
                    i++;
                    continue;
                }
                Expect(s, ref i, ']');
                return a;
            }
        }
        if (c == '"')
            return Str(s, ref i);
        if (Word(s, ref i, "true"))
            return true;
        if (Word(s, ref i, "false"))
            return false;
        if (Word(s, ref i, "null"))
            return null;
        int start = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0)
            i++;
        string num = s.Substring(start, i - start);
        long l;
        if (num.Length > 0 && long.TryParse(num, NumberStyles.AllowLeadingSign,
                                            CultureInfo.InvariantCulture, out l))
            return l;
        double d;
        if (num.Length > 0 && double.TryParse(num, NumberStyles.Float, CultureInfo.InvariantCulture,
                                              out d))
            return d;
        throw new FormatException("unexpected character '" + c + "' at offset " + start);
    }

    static bool Word(string s, ref int i, string w)
    {
        if (string.CompareOrdinal(s, i, w, 0, w.Length) != 0)
            return false;
        i += w.Length;
        return true;
    }

    static void Expect(string s, ref int i, char c)
    {
        if (i >= s.Length || s[i] != c)
            throw new FormatException("expected '" + c + "' at offset " + i);
        i++;
    }

    static string Str(string s, ref int i)
    {
        var b = new StringBuilder();
        i++; // the opening quote
        while (i < s.Length && s[i] != '"') {
            char c = s[i++];
            if (c != '\\') {
                b.Append(c);
                continue;
            }
            if (i >= s.Length)
                break;
            char e = s[i++];
            switch (e) {
            case 'n': b.Append('\n'); break;
            case 't': b.Append('\t'); break;
            case 'r': b.Append('\r'); break;
            case 'b': b.Append('\b'); break;
            case 'f': b.Append('\f'); break;
            case 'u':
                if (i + 4 > s.Length)
                    throw new FormatException("short \\u escape");
                b.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber,
                                         CultureInfo.InvariantCulture));
                i += 4;
                break;
            default: b.Append(e); break;
            }
        }
        Expect(s, ref i, '"');
        return b.ToString();
    }

    // s as a JSON string literal.
    public static string Quote(string s)
    {
        var b = new StringBuilder("\"");
        foreach (char c in s) {
            if (c == '"' || c == '\\')
                b.Append('\\').Append(c);
            else if (c < 0x20)
                b.AppendFormat(CultureInfo.InvariantCulture, "\\u{0:x4}", (int)c);
            else
                b.Append(c);
        }
        return b.Append('"').ToString();
    }

    public static string Num(double d) { return d.ToString("R", CultureInfo.InvariantCulture); }
}

// A workload's parameters, read by name; errors name the parameter and the valid values.
sealed class Params
{
    readonly Dictionary<string, object> p;

    public Params(Dictionary<string, object> p) { this.p = p ?? new Dictionary<string, object>(); }

    public bool Has(string name) { return p.ContainsKey(name); }

    public long Int(string name)
    {
        object v;
        if (!p.TryGetValue(name, out v))
            throw new ArgumentException("parameter " + name + " missing");
        if (!(v is long))
            throw new ArgumentException("parameter " + name + " is not an integer");
        return (long)v;
    }

    public string Choice(string name, params string[] valid)
    {
        object v;
        if (!p.TryGetValue(name, out v))
            throw new ArgumentException("parameter " + name + " missing");
        string s = v as string;
        if (s == null || Array.IndexOf(valid, s) < 0)
            throw new ArgumentException("parameter " + name + " '" + v + "' (valid: " +
                                        string.Join(", ", valid) + ")");
        return s;
    }
}
