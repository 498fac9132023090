"""An HTML parser for the review-page tests: the start tags with their attributes, the
visible text, and the text inside each <mark>."""

from html.parser import HTMLParser


class Tree(HTMLParser):
    """Start tags with their attributes, the visible text, and the text inside each mark."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.text = []
        self.open_marks = []
        self.mark_text = {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "mark":
            self.open_marks.append(attrs.get("id"))
            self.mark_text[attrs.get("id")] = ""

    def handle_endtag(self, tag):
        if tag == "mark":
            self.open_marks.pop()

    def handle_data(self, data):
        self.text.append(data)
        for m in self.open_marks:
            self.mark_text[m] += data

    def find(self, tag):
        return [a for t, a in self.tags if t == tag]
