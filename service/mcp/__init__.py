"""The MCP server (`smq mcp`): the three core tools and the exploration tools over the Model Context Protocol."""
