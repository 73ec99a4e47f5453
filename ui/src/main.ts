import { mount } from "svelte";
import App from "./App.svelte";
import "./app.css";
import { initTheme } from "./lib/theme";

// The palette is chosen before anything is drawn.
initTheme();

const target = document.getElementById("app");
if (!target) throw new Error("missing #app element");

export default mount(App, { target });
