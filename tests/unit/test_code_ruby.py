"""Ruby is cut at its classes, modules and methods at every depth, headed by their path.

Rack 2.2.22 and Sinatra 3.0.5 as Debian installs them (`ruby-rack`, `ruby-sinatra`) were
read one section a file, each headed `module Rack` or `module Sinatra`: the column-0
pattern found only the module every gem file opens with (newuser41). A method is now
`module Rack > class Deflater > def call`, with the comments above it; a heredoc's or an
`=begin` comment's `def` lines, and what follows `__END__`, head nothing."""

from __future__ import annotations

import pytest

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse
from tests.support.code_sections import assert_every_line_kept, sections_of

DEFLATER = b"""# frozen_string_literal: true

require "zlib"

module Rack
  # This middleware enables content encoding of http responses.
  class Deflater
    # Creates Rack::Deflater middleware.
    def initialize(app, options = {})
      @app = app
    end

    def call(env)
      status, headers, body = @app.call(env)
      [status, headers, body]
    end

    class GzipStream
      def each(&block)
        @writer = block
      end
    end

    private

    def should_deflate?(env, status, headers, body)
      return false if status < 200
      true
    end
  end
end
"""

GENERATED = b"""module Sinatra
  VERSION_NOTE = "kept with its module"

  class Base
    class << self
      # Defines a route for GET.
      def get(path, opts = {}, &block)
        route('GET', path, opts, &block)
      end
    end

    TEMPLATE = <<~RUBY
      def generated_helper
        :inside_a_heredoc
      end
    RUBY

    QUOTED = <<-'EOS'.strip + "#{<<NOT_A_HEREDOC}"
def quoted_heredoc
    EOS

    def after_heredocs
      "<<~NOPE is a string, not a heredoc"
    end
  end
end

=begin
def commented_out
end
=end

def top_level_helper
end

__END__
def data_after_end
"""


def test_a_gem_file_is_cut_at_its_nested_classes_and_methods() -> None:
    sections = sections_of("deflater.rb", DEFLATER)
    assert list(sections) == [
        "module Rack > class Deflater > def initialize",
        "module Rack > class Deflater > def call",
        "module Rack > class Deflater > class GzipStream > def each",
        "module Rack > class Deflater > def should_deflate?",
    ]
    # The module holds nothing but the class, the class nothing before its first method:
    # their lines and comments go with that method, no section of their own.
    # Nor do the requires above the module, which had been an `(untitled)` chunk a file.
    initialize = sections["module Rack > class Deflater > def initialize"]
    assert 'require "zlib"' in initialize
    assert "module Rack" in initialize
    assert "content encoding of http responses" in initialize
    assert "Creates Rack::Deflater" in initialize


RACKUP = b"""# frozen_string_literal: true

require_relative "app"

class Health
  def call(env)
    [200, {}, ["ok"]]
  end
end

map "/health" do
  run Health.new
end
run App
"""

GEMSPEC = b"""Gem::Specification.new do |s|
  s.name = "harbour"
  s.version = "1.0.0"
  s.summary = "Berths and tides"
end
"""


@pytest.mark.parametrize(("name", "data"), [("config.ru", RACKUP), ("harbour.gemspec", GEMSPEC)])
def test_a_rackup_file_and_a_gemspec_are_included_and_read_as_ruby(name: str, data: bytes) -> None:
    """Rack's `config.ru` and a gem's `.gemspec` are Ruby: neither was included by
    default, and included, a rackup file's classes headed nothing (fixes42)."""
    assert PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS).includes(f"app/{name}")
    assert sections_of(name, data) == sections_of(name.replace(".", "_") + ".rb", data)
    assert_every_line_kept(name, data)


RUSSIAN_MANUAL = """Руководство пользователя

Установка
=========

Запустите `make install` от имени root. Файл config.rb не нужен.
"""


@pytest.mark.parametrize("encoding", ["utf-8", "koi8-r"])
def test_a_russian_manual_named_ru_is_read_as_text_not_ruby(encoding: str) -> None:
    """`.ru` is also Russian's code: a `manual.ru` was one block of Ruby (fixes43)."""
    document = parse("manual.ru", RUSSIAN_MANUAL.encode(encoding))
    assert document.kind in ("text", "markdown")
    assert "```" not in document.text
    if encoding == "utf-8":
        assert "Запустите `make install` от имени root." in document.text
    # A rackup file stays Ruby, its comments in Russian or not.
    rackup = "# Приложение\n".encode() + RACKUP
    assert "class Health > def call" in sections_of("config.ru", rackup)


@pytest.mark.parametrize(
    "comment",
    [
        "# Конфигурация Rack-приложения для запуска сервера разработки",
        "# このファイルはRackアプリケーションの設定です。"
        "開発用のサーバーを起動するために使います。",
    ],
)
def test_a_short_rackup_with_a_comment_in_another_alphabet_stays_ruby(comment: str) -> None:
    """A three-line `config.ru` whose one comment has more letters than its code (review43:
    read as plain text, its comment out-weighing `require './app'` and `run`): Ruby's
    comments are not its code, and are not counted."""
    rackup = f"{comment}\nrequire './app'\nrun Sinatra::Application\n".encode()
    assert "```ruby" in parse("config.ru", rackup).text


def test_a_rackups_classes_head_their_sections() -> None:
    assert "class Health > def call" in sections_of("config.ru", RACKUP)


def test_every_line_of_a_ruby_file_is_kept_at_its_own_line_number() -> None:
    for name, data in (("deflater.rb", DEFLATER), ("base.rb", GENERATED)):
        assert_every_line_kept(name, data)


def test_heredocs_begin_comments_and_data_after_end_head_nothing() -> None:
    sections = sections_of("base.rb", GENERATED)
    assert list(sections) == [
        "module Sinatra",
        "module Sinatra > class Base",
        "module Sinatra > class Base > def get",
        "module Sinatra > class Base > def after_heredocs",
        "def top_level_helper",
    ]
    # A module with code of its own before its class keeps a section.
    assert "VERSION_NOTE" in sections["module Sinatra"]
    # `class << self` is no heading: its methods sit under the class.
    assert "Defines a route for GET." in sections["module Sinatra > class Base > def get"]
    # The heredocs' text, the =begin comment and the data stay, under what they are in.
    # after `def get`'s `end`, a constant's heredoc is the class's code.
    assert ":inside_a_heredoc" in sections["module Sinatra > class Base"]
    assert "def quoted_heredoc" in sections["module Sinatra > class Base"]
    assert "def commented_out" in sections["module Sinatra > class Base > def after_heredocs"]
    assert "def data_after_end" in sections["def top_level_helper"]


REQUEST = b"""module Rack
  class Request
    module Helpers
      def get?;     request_method == GET     end
      def ok? = true
      def ip
        remote
      end
    end

    class CommonLogger
      def call(env)
        super
      end

      superclass.class_eval do
        def call(env)
          call_without_check(env)
        end
      end
    end
  end
end
"""


def test_nesting_follows_the_ends_not_only_the_indents() -> None:
    """A one-line or endless `def` holds nothing, and a closed `def call` is not the
    parent of a `def` indented further in a block after it: the `class_eval do` is the
    class's code, its `def call` a method of the class again."""
    assert list(sections_of("request.rb", REQUEST)) == [
        "module Rack > class Request > module Helpers > def get?",
        "module Rack > class Request > module Helpers > def ok?",
        "module Rack > class Request > module Helpers > def ip",
        "module Rack > class Request > class CommonLogger > def call",
        "module Rack > class Request > class CommonLogger",
    ]


README_RDOC = b"""= \\Rack, a modular Ruby webserver interface

\\Rack provides a minimal interface.

== Configuration

=== param_depth_limit

The maximum amount of nesting allowed in parameters.

  Rack::Utils.param_depth_limit = 3  # C:\\Rack stays

# not a heading in RDoc
"""


def test_a_gems_readme_rdoc_is_cut_at_its_rdoc_headings() -> None:
    """README.rdoc (read as text by its name) had every passage cited under its first
    line, `= \\Rack, a modular …`."""
    sections = sections_of("README.rdoc", README_RDOC)
    assert list(sections) == [
        "Rack, a modular Ruby webserver interface",
        "Rack, a modular Ruby webserver interface > Configuration > param_depth_limit",
    ]
    limit = sections["Rack, a modular Ruby webserver interface > Configuration > param_depth_limit"]
    assert "Rack::Utils.param_depth_limit = 3  # C:\\Rack stays" in limit  # verbatim kept
    assert "not a heading in RDoc" in limit
    assert (
        "Rack provides a minimal interface." in sections["Rack, a modular Ruby webserver interface"]
    )
    chunks = chunk_document(parse("README.rdoc", README_RDOC))
    assert [c.lines for c in chunks][-1] == (9, 13)  # the file's own line numbers


SETTINGS = b"""module Sinatra
  class Base
    def force_encoding(data)
      data
    end

    set :raise_errors, true
    set :sessions, false

    private

    def helper
    end
  end

  class Application < Base
    set :logging, true
  end
end
"""


def test_a_class_bodys_code_after_a_method_is_the_classs() -> None:
    """`set :sessions, false` after `def force_encoding`'s `end` had been cited as
    `def force_encoding` (128 lines of Sinatra::Base's settings); `private` and `end`
    alone stay with the method above."""
    sections = sections_of("base.rb", SETTINGS)
    assert list(sections) == [
        "module Sinatra > class Base > def force_encoding",
        "module Sinatra > class Base",
        "module Sinatra > class Base > def helper",
        "module Sinatra > class Application",
    ]
    assert "set :sessions, false" in sections["module Sinatra > class Base"]
    assert "set :sessions" not in sections["module Sinatra > class Base > def force_encoding"]


def test_heredocs_opened_on_one_line_are_read_in_order() -> None:
    """Three bodies, each awaited after the one before: none of their `def` lines heads
    a section, the `def` after the last does (the queue is a deque: a line opening
    thousands costs no more than their bodies' length)."""
    source = b"""ALL = [<<~ONE, <<-TWO, <<THREE]
  def in_one
  ONE
    def in_two
    TWO
def in_three
THREE
def after_them
end
"""
    sections = sections_of("many.rb", source)
    assert list(sections) == ["(untitled)", "def after_them"]  # code before: the constant
    assert "def in_three" in sections["(untitled)"]
