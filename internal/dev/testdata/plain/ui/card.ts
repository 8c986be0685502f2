const root = document.getElementById("root")!;
root.textContent = "card v1";
