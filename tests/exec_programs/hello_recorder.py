#!/usr/bin/python3
"""A lock-client program for one client (--concurrency 1) that writes the
hello the harness sent it to the file its argument names, the password
replaced by "..." when there is one (it must reach no file or log), and
then grants every acquire and release: with a single client there is no one
to exclude. tests/exec_hello_doc_integration_test.cc compares what it wrote
with the examples of docs/exec-clients.md."""
import json
import sys


def main():
    record = sys.argv[1]
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"]}
        if request["op"] == "hello":
            hello = dict(request, password="..." if request["password"] else "")
            with open(record, "w") as out:
                json.dump(hello, out)
            reply.update(name="hello-recorder", version="1", capabilities={})
        elif request["op"] == "acquire":
            reply.update(result="ok", token="t%d" % request["id"],
                         validity_ms=request["lease_ms"])
        else:
            reply.update(result="ok")
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
